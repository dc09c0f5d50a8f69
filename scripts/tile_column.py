#!/usr/bin/env python3
"""Repeats one integer column end to end to a given number of rows and
writes it as a raw little-endian array, for benchmarks at a size where
small real arrays would otherwise fit in a cache.

    scripts/tile_column.py SRC --type u32 --rows 10000000 --out F.bin [--column NAME]

SRC is a raw array (.bin or .bin.gz, values of --type) or a CSV file
(.csv or .csv.gz, ';' or ',' separated, a header row) with --column naming
the column; CSV fields are read as numbers ("40.0" is 40) and rows whose
field is not a number are skipped. Standard library only.
"""
import argparse
import array
import csv
import gzip
import io
import sys

TYPES = {"u8": "B", "i8": "b", "u16": "H", "i16": "h", "u32": "I", "i32": "i",
         "u64": "Q", "i64": "q"}


def open_maybe_gz(path):
    raw = open(path, "rb")
    return gzip.GzipFile(fileobj=raw) if path.endswith(".gz") else raw


def read_values(path, type_code, column):
    if ".csv" in path:
        if column is None:
            sys.exit("tile_column.py: a CSV source needs --column")
        text = io.TextIOWrapper(open_maybe_gz(path), encoding="utf-8", errors="replace")
        first = text.readline()
        delimiter = ";" if first.count(";") > first.count(",") else ","
        header = next(csv.reader([first], delimiter=delimiter))
        names = [h.strip() for h in header]
        if column not in names:
            sys.exit(f"tile_column.py: no column '{column}' in {path} ({', '.join(names)})")
        index = names.index(column)
        values = array.array(type_code)
        for row in csv.reader(text, delimiter=delimiter):
            try:
                number = float(row[index])
            except (IndexError, ValueError):
                continue
            if number != int(number):
                sys.exit(f"tile_column.py: '{row[index]}' in column '{column}' is not an integer")
            values.append(int(number))
        return values
    values = array.array(type_code)
    values.frombytes(open_maybe_gz(path).read())
    if sys.byteorder != "little":
        values.byteswap()
    return values


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source")
    parser.add_argument("--type", required=True, choices=sorted(TYPES))
    parser.add_argument("--rows", required=True, type=int)
    parser.add_argument("--out", required=True)
    parser.add_argument("--column")
    args = parser.parse_args()
    values = read_values(args.source, TYPES[args.type], args.column)
    if len(values) == 0:
        sys.exit("tile_column.py: the source holds no values")
    repeats = -(-args.rows // len(values))
    tiled = (values * repeats)[: args.rows]
    if sys.byteorder != "little":
        tiled.byteswap()
    with open(args.out, "wb") as out:
        tiled.tofile(out)
    print(f"{args.out}: {args.rows} {args.type} values ({len(values)} repeated)")


if __name__ == "__main__":
    main()

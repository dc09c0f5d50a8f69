#!/usr/bin/env python3
"""Runs the L3 conformance corpus against a reader, a validator and/or a writer.

The implementations under test are external commands given as templates;
placeholders in braces are replaced in each argument after the template is
split like a shell command line (so values never need quoting):

  --reader    '{file} {column} {out}'  decode one column of {file} to raw
              little-endian values in {out} and exit 0, or exit nonzero if the
              file is invalid (optionally naming the error class on stderr).
              {column_index} is also available.
  --validator '{file}'  validate the whole file deeply (spec section 10.3):
              exit 0 if it is valid, nonzero (with the class) otherwise.
  --writer    '{input} {type} {out}'  write the raw little-endian values of
              {input} ({type} is i8 ... u64) as a one-column L3 file {out}.
              Each file is then checked with the reference tools: deep
              validation, byte-exact decoding and the column type.

{out} never exists when a command starts. Python 3 standard library only.
Exit status: 0 when every selected check passed, 1 otherwise, 2 on usage
errors. See conformance/README.md.
"""

import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import threading
import time

ERROR_CLASSES = (
    "IO_ERROR", "NOT_L3", "TRUNCATED", "CHECKSUM_MISMATCH", "UNSUPPORTED_VERSION",
    "UNSUPPORTED_FEATURE", "CORRUPT_FRAMING", "CORRUPT_FOOTER", "CORRUPT_METADATA",
    "CORRUPT_PAYLOAD", "RESOURCE_LIMIT",
)
CLASS_RE = re.compile(r"\b(" + "|".join(ERROR_CLASSES) + r")\b")
PLACEHOLDER_RE = re.compile(r"\{(\w+)\}")
HERE = os.path.dirname(os.path.abspath(__file__))
FEATURES = ("VALIDITY_BITMAPS",)


def render(template, values):
    """Splits a template like a shell would and fills in the placeholders."""
    argv = []
    for arg in shlex.split(template):
        def sub(m):
            if m.group(1) not in values:
                raise KeyError(m.group(1))
            return values[m.group(1)]
        argv.append(PLACEHOLDER_RE.sub(sub, arg))
    return argv


class Outcome:
    """What one command did."""

    def __init__(self, argv, rc, stdout, stderr, seconds, error=None):
        self.argv = argv
        self.rc = rc
        self.stdout = stdout
        self.stderr = stderr
        self.seconds = seconds
        self.error = error  # the command could not run or timed out

    def error_class(self):
        m = CLASS_RE.search(self.stderr or "")
        return m.group(1) if m else None

    def summary(self):
        if self.error:
            return self.error
        tail = (self.stderr or "").strip().splitlines()
        return "exit %d%s" % (self.rc, (": " + tail[-1][:200]) if tail else "")


def run(argv, timeout):
    start = time.monotonic()
    try:
        p = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout)
    except FileNotFoundError:
        return Outcome(argv, None, "", "", 0.0, "command not found: %s" % argv[0])
    except subprocess.TimeoutExpired:
        return Outcome(argv, None, "", "", timeout, "timed out after %g s" % timeout)
    stderr = p.stderr.decode("utf-8", "replace")
    return Outcome(argv, p.returncode, p.stdout.decode("utf-8", "replace"), stderr,
                   time.monotonic() - start)


def sha256_file(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def valid_rows_equal(got, want, width, validity):
    """Compares values at valid rows only (bit i of the bitmap set)."""
    if len(got) != len(want):
        return False
    for i in range(len(want) // width):
        if validity[i // 8] >> (i % 8) & 1 and got[i * width:(i + 1) * width] != want[i * width:(i + 1) * width]:
            return False
    return True


TYPE_WIDTH = {"i8": 1, "u8": 1, "i16": 2, "u16": 2, "i32": 4, "u32": 4, "i64": 8, "u64": 8,
              "f16": 2, "bf16": 2, "f32": 4, "f64": 8}


def row_bytes(col):
    """Bytes of one decoded row: row_width values (float columns, spec 11.2.1)."""
    return TYPE_WIDTH[col["type"]] * col.get("row_width", 1)


class Runner:
    def __init__(self, args, corpus, tmp):
        self.args = args
        self.corpus = corpus
        self.tmp = tmp
        self.counter = 0
        self.lock = threading.Lock()

    def path(self, rel):
        return os.path.join(self.corpus, rel)

    def out_path(self, stem, suffix):
        # A fresh path for every command: {out} never exists beforehand.
        with self.lock:
            self.counter += 1
            n = self.counter
        return os.path.join(self.tmp, "%05d_%s%s" % (n, re.sub(r"\W", "_", stem)[-60:], suffix))

    def class_ok(self, outcome, wanted):
        if not self.args.check_error_class:
            return True, ""
        got = outcome.error_class()
        if got in wanted:
            return True, ""
        return False, "expected error class %s, got %s (%s)" % (
            " or ".join(wanted), got or "none on stderr", outcome.summary())

    def expect_failure(self, outcome, wanted, what):
        """A command that must fail with one of the wanted classes."""
        if outcome.error:
            return "FAIL", "%s: %s" % (what, outcome.error)
        if outcome.rc < 0:
            return "FAIL", "%s crashed (signal %d)" % (what, -outcome.rc)
        if outcome.rc == 0:
            return "FAIL", "%s accepted the file; expected %s" % (what, " or ".join(wanted))
        ok, why = self.class_ok(outcome, wanted)
        return ("PASS", "rejected: %s" % (outcome.error_class() or "exit %d" % outcome.rc)) if ok else ("FAIL", why)

    # -- reader ------------------------------------------------------------

    def read_column(self, case, column_name, column_index):
        out = self.out_path(case["id"] + "_c%d" % column_index, ".bin")
        argv = render(self.args.reader, {"file": self.path(case["path"]), "column": column_name,
                                         "column_index": str(column_index), "out": out})
        return run(argv, self.args.timeout), out

    def reader_decodes(self, case, columns, deep_class=None):
        """Every column must decode to its expected bytes (or, for deep cases,
        the reader may reject the file with the deep class)."""
        for i, col in enumerate(columns):
            outcome, out = self.read_column(case, col["name"], i)
            if outcome.error:
                return "FAIL", "column %r: %s" % (col["name"], outcome.error)
            if outcome.rc != 0:
                if outcome.rc > 0 and deep_class is not None:
                    ok, why = self.class_ok(outcome, [deep_class])
                    if ok:
                        return "PASS", "rejected with the deep-validation class (allowed)"
                    return "FAIL", why
                return "FAIL", "column %r: %s" % (col["name"], outcome.summary())
            if not os.path.exists(out):
                return "FAIL", "column %r: exit 0 but no output file" % col["name"]
            got = read_bytes(out)
            want = read_bytes(self.path(col["values"]))
            if "validity" in col:
                if not valid_rows_equal(got, want, row_bytes(col), read_bytes(self.path(col["validity"]))):
                    return "FAIL", "column %r: values at valid rows differ" % col["name"]
            elif got != want:
                n = len(want) // row_bytes(col)
                return "FAIL", "column %r: %d bytes decoded, %d expected (%d rows); %s" % (
                    col["name"], len(got), len(want), n,
                    "first difference at row %d" % first_diff(got, want, row_bytes(col))
                    if len(got) == len(want) else "lengths differ")
        return "PASS", "decoded %d column(s)" % len(columns)

    def check_reader(self, case):
        kind, e = case["kind"], case["expected"]
        if kind == "valid":
            return self.reader_decodes(case, e["columns"])
        if kind == "deep":
            return self.reader_decodes(case, e["columns"], deep_class=e["deep_validation"])
        if self.args.no_segment_checksums and "segment_checksums" in e.get("requires", []):
            return "SKIP", "needs a reader that verifies segment checksums"
        feature = e.get("if_feature_implemented")
        if feature and feature["feature"] in self.args.features:
            if "columns" in feature:
                return self.reader_decodes(case, feature["columns"])
            wanted = [feature["error_class"]]
        else:
            wanted = [e["error_class"]] + e.get("also_acceptable", [])
        outcome, _ = self.read_column(case, e["column"], 0)
        return self.expect_failure(outcome, wanted, "reader")

    # -- validator ---------------------------------------------------------

    def check_validator(self, case):
        kind, e = case["kind"], case["expected"]
        outcome = run(render(self.args.validator, {"file": self.path(case["path"])}), self.args.timeout)
        feature = e.get("if_feature_implemented")
        if kind == "valid" or (feature and feature["feature"] in self.args.features and "columns" in feature):
            if outcome.error or outcome.rc != 0:
                return "FAIL", "validator rejected a valid file: %s" % outcome.summary()
            return "PASS", "valid"
        if kind == "deep":
            return self.expect_failure(outcome, [e["deep_validation"]], "validator")
        if feature and feature["feature"] in self.args.features:
            wanted = [feature["error_class"]]
        else:
            wanted = [e["error_class"]] + e.get("also_acceptable", [])
        return self.expect_failure(outcome, wanted, "validator")

    # -- writer ------------------------------------------------------------

    def check_writer(self, case):
        e = case["expected"]
        out = self.out_path(case["id"], ".l3")
        argv = render(self.args.writer, {"input": self.path(case["path"]), "type": e["type"], "out": out})
        outcome = run(argv, self.args.timeout)
        if outcome.error or outcome.rc != 0:
            return "FAIL", "writer failed: %s" % outcome.summary()
        if not os.path.exists(out):
            return "FAIL", "writer exited 0 but wrote no file"
        v = run(render(self.args.ref_validator, {"file": out}), self.args.timeout)
        if v.error or v.rc != 0:
            return "FAIL", "reference deep validation failed: %s" % v.summary()
        decoded = self.out_path(case["id"] + "_decoded", ".bin")
        r = run(render(self.args.ref_reader, {"file": out, "column": "0", "column_index": "0", "out": decoded}),
                self.args.timeout)
        if r.error or r.rc != 0:
            return "FAIL", "reference reader failed: %s" % r.summary()
        got, want = read_bytes(decoded), read_bytes(self.path(case["path"]))
        if got != want:
            return "FAIL", "decodes to %d bytes that differ from the %d input bytes" % (len(got), len(want))
        if self.args.ref_dump:
            d = run(render(self.args.ref_dump, {"file": out}), self.args.timeout)
            if d.error or d.rc != 0:
                return "FAIL", "reference dump failed: %s" % d.summary()
            try:
                doc = json.loads(d.stdout)
                cols = doc["columns"]
            except (ValueError, KeyError) as err:
                return "FAIL", "reference dump output is not the expected JSON: %s" % err
            if len(cols) != 1:
                return "FAIL", "the file has %d columns, expected 1" % len(cols)
            if cols[0].get("physical_type") != e["type"] or cols[0].get("num_rows") != e["num_rows"]:
                return "FAIL", "column is %s with %s rows, expected %s with %d" % (
                    cols[0].get("physical_type"), cols[0].get("num_rows"), e["type"], e["num_rows"])
        return "PASS", "%d bytes, deep OK, decodes byte for byte" % os.path.getsize(out)


def first_diff(a, b, width):
    for i in range(0, min(len(a), len(b)), width):
        if a[i:i + width] != b[i:i + width]:
            return i // width
    return min(len(a), len(b)) // width


def default_tool(name):
    for base in (os.path.join(HERE, "..", "build", "bin"),):
        path = os.path.normpath(os.path.join(base, name))
        if os.path.exists(path):
            return path
    return None


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="See conformance/README.md for the protocol and examples.")
    p.add_argument("--corpus", default=HERE, help="corpus directory (default: this script's)")
    p.add_argument("--reader", help="reader command template: {file} {column} {out}")
    p.add_argument("--validator", help="validator command template: {file}")
    p.add_argument("--writer", help="writer command template: {input} {type} {out}")
    l3 = default_tool("l3")
    l3dump = default_tool("l3dump")
    p.add_argument("--ref-reader", default=l3 and shlex.quote(l3) + " decompress {file} --column {column_index} -o {out}",
                   help="reference reader for --writer checks (default: build/bin/l3 decompress)")
    p.add_argument("--ref-validator", default=l3 and shlex.quote(l3) + " validate --deep {file}",
                   help="reference deep validator for --writer checks (default: build/bin/l3 validate --deep)")
    p.add_argument("--ref-dump", default=l3dump and shlex.quote(l3dump) + " --json {file}",
                   help="reference JSON dump for --writer type checks (default: build/bin/l3dump --json; "
                        "'' to skip)")
    p.add_argument("--check-error-class", action="store_true",
                   help="require the expected error class name on stderr of failing commands")
    p.add_argument("--features", default="", help="comma-separated optional features the implementation "
                   "supports (%s)" % ", ".join(FEATURES))
    p.add_argument("--no-segment-checksums", action="store_true",
                   help="skip cases that need segment checksums verified on read")
    p.add_argument("--filter", help="only case ids matching this regular expression")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per command (default 60)")
    p.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, help="commands run in parallel")
    p.add_argument("--json", metavar="FILE", help="write the JSON report to FILE ('-' for stdout)")
    p.add_argument("--quiet", action="store_true", help="print failures and the summary only")
    p.add_argument("--keep-temp", action="store_true", help="keep the outputs of the commands")
    args = p.parse_args()
    args.features = {f.strip().upper() for f in args.features.split(",") if f.strip()}
    for f in args.features:
        if f not in FEATURES:
            p.error("unknown feature %s (known: %s)" % (f, ", ".join(FEATURES)))
    if not (args.reader or args.validator or args.writer):
        p.error("give at least one of --reader, --validator, --writer")
    if args.writer and not (args.ref_reader and args.ref_validator):
        p.error("--writer needs the reference tools: build build/bin/l3 or give --ref-reader and --ref-validator")

    corpus = os.path.abspath(args.corpus)
    with open(os.path.join(corpus, "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    cases = manifest["cases"]
    if args.filter:
        cases = [c for c in cases if re.search(args.filter, c["id"])]

    tmp = tempfile.mkdtemp(prefix="l3conf-")
    runner = Runner(args, corpus, tmp)
    jobs = []
    for case in cases:
        if not os.path.exists(runner.path(case["path"])) or sha256_file(runner.path(case["path"])) != case["sha256"]:
            jobs.append((case, "corpus", lambda c: ("FAIL", "corpus file missing or changed (SHA-256)")))
            continue
        if case["kind"] == "writer_input":
            if args.writer:
                jobs.append((case, "writer", runner.check_writer))
            continue
        if args.reader:
            jobs.append((case, "reader", runner.check_reader))
        if args.validator:
            jobs.append((case, "validator", runner.check_validator))

    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(fn, case) for case, _, fn in jobs]
        for (case, role, _), fut in zip(jobs, futures):
            try:
                status, detail = fut.result()
            except Exception as err:  # a bug in a template, e.g. an unknown placeholder
                status, detail = "FAIL", "runner error: %r" % err
            results.append({"id": case["id"], "kind": case["kind"], "role": role, "status": status,
                            "detail": detail, "spec_sections": case.get("spec_sections", []),
                            "expected": case["expected"]})

    # With the JSON report on stdout, the table goes to stderr.
    out = sys.stderr if args.json == "-" else sys.stdout
    width = max([len(r["id"]) for r in results] + [4])
    lines = []
    for r in results:
        if args.quiet and r["status"] != "FAIL":
            continue
        lines.append("%-*s  %-9s  %-4s  %s" % (width, r["id"], r["role"], r["status"], r["detail"]))
    if lines:
        print("%-*s  %-9s  %-4s  %s" % (width, "case", "role", "", "detail"), file=out)
        print("\n".join(lines), file=out)
    totals = {}
    for r in results:
        t = totals.setdefault(r["role"], {"PASS": 0, "FAIL": 0, "SKIP": 0})
        t[r["status"]] += 1
    for role, t in sorted(totals.items()):
        print("%-9s %4d passed, %4d failed, %4d skipped" % (role, t["PASS"], t["FAIL"], t["SKIP"]), file=out)
    failed = sum(t["FAIL"] for t in totals.values())
    report = {"corpus": corpus, "spec_version": manifest.get("spec_version"),
              "reader": args.reader, "validator": args.validator, "writer": args.writer,
              "check_error_class": args.check_error_class, "features": sorted(args.features),
              "totals": totals, "passed": failed == 0, "results": results}
    if args.json == "-":
        json.dump(report, sys.stdout, indent=2)
        print()
    elif args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(report, f, indent=2)
    if args.keep_temp:
        print("outputs kept in %s" % tmp, file=out)
    else:
        for name in os.listdir(tmp):
            os.remove(os.path.join(tmp, name))
        os.rmdir(tmp)
    print("conformance: %s" % ("PASS" if failed == 0 else "FAIL (%d)" % failed), file=out)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

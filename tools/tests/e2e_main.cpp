// main() of l3_cli_e2e_tests, the doctest tests that run the built tools.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

"""Reference implementation of parse_pytest_log (seed 002) for the cross-check.

Input on stdin: a JSON list of base64 strings (raw bytes of each log).
Output on stdout: a JSON list of results, with every string as base64 of its
bytes. Bytes are decoded and encoded with the surrogateescape handler, so
that invalid UTF-8 passes through unchanged.
"""
import base64
import json
import re
import sys

E_RE = re.compile(r"^E\s+")


def parse_pytest_log(log):
    failed, errors, assertions = [], [], []
    for line in log.splitlines():
        line = line.strip()
        if line.startswith("FAILED"):
            failed.append(line)
        elif E_RE.match(line):
            errors.append(line[2:])
        elif "AssertionError" in line:
            assertions.append(line)
    return {
        "failed": failed,
        "errors": errors,
        "assertions": assertions,
        "failure_count": len(failed) or len(assertions) or len(errors),
    }


def enc(s):
    return base64.b64encode(s.encode("utf-8", "surrogateescape")).decode("ascii")


def main():
    out = []
    for item in json.load(sys.stdin):
        log = base64.b64decode(item).decode("utf-8", "surrogateescape")
        r = parse_pytest_log(log)
        for k in ("failed", "errors", "assertions"):
            r[k] = [enc(s) for s in r[k]]
        out.append(r)
    json.dump(out, sys.stdout)


main()

"""Turn test_results.json into reward.json.

Usage: python3 parser.py [TEST_RESULTS] [REWARD]
A skipped pytest step gives tests_passed = null: a skip never reads as a pass.
"""

import json
import sys


def parse(results):
    """Return the reward record for one test_results.json object."""
    skipped = results.get("pytest_skipped")
    if skipped:
        return {
            "tests_passed": None,
            "tests_ran": False,
            "pytest_skipped": skipped,
            "n_regressed": None,
        }
    regression = results.get("regression") or {}
    n_regressed = regression.get("n_regressed")
    # datasmith's runner counts the tests that ran in results.summary.total.
    summary = (results.get("results") or {}).get("summary") or {}
    ran = (summary.get("total") or 0) > 0
    passed = ran and n_regressed == 0
    return {
        "tests_passed": passed,
        "tests_ran": ran,
        "pytest_skipped": None,
        "n_regressed": n_regressed,
    }


def main(argv):
    src = argv[1] if len(argv) > 1 else "/logs/artifacts/test_results.json"
    dst = argv[2] if len(argv) > 2 else "/logs/artifacts/reward.json"
    try:
        with open(src, encoding="utf-8") as f:
            results = json.load(f)
    except (OSError, ValueError) as err:
        results = {"tests_ran": False, "error": str(err)}
    reward = parse(results)
    if "error" in results:
        reward["tests_passed"] = None
        reward["error"] = results["error"]
    with open(dst, "w", encoding="utf-8") as f:
        json.dump(reward, f, sort_keys=True)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

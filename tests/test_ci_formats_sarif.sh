#!/bin/bash
# test_ci_formats_sarif.sh EMITTER SCHEMA — validates `--format sarif` output
# (the seed-004 fixture, printed by `EMITTER --emit sarif`) against the OASIS
# SARIF 2.1.0 JSON schema (testdata/sarif/sarif-schema-2.1.0.json) with
# python3-jsonschema (Debian package python3-jsonschema), and checks that the
# same validator rejects a broken copy (a result level "fatal", a result
# without message), so a pass means something.
# Exit 77 (skipped) when python3-jsonschema is missing: the C test
# ci-formats still checks the schema's required fields.
# (Microsoft's SARIF Multitool 5.7.0 from npm was tried: its `validate`
# reported nothing even for an invalid level, so it is not used.)
set -u
emitter=$1 schema=$2
if ! python3 -c 'import jsonschema' 2>/dev/null; then
	echo "SKIP: python3-jsonschema is not installed"
	exit 77
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$emitter" --emit sarif > "$tmp/out.sarif" || { echo "FAIL: emitter failed"; exit 1; }

python3 - "$schema" "$tmp/out.sarif" <<'EOF'
import copy, json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
validator = jsonschema.validators.validator_for(schema)(schema)

def errors(d):
    return sorted(validator.iter_errors(d), key=lambda e: list(e.path))

bad = 0
for e in errors(doc):
    print("FAIL: %s: %s" % ("/".join(map(str, e.path)), e.message))
    bad = 1
results = doc["runs"][0]["results"]
if len(results) != 2:
    print("FAIL: expected 2 results (one per incident), got %d" % len(results))
    bad = 1

broken = copy.deepcopy(doc)
broken["runs"][0]["results"][0]["level"] = "fatal"
del broken["runs"][0]["results"][1]["message"]
if len(errors(broken)) < 2:
    print("FAIL: the validator accepts a broken SARIF log")
    bad = 1
if not bad:
    print("PASS: SARIF output valid against sarif-schema-2.1.0.json; broken copy rejected")
sys.exit(bad)
EOF

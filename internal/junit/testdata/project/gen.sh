#!/bin/bash
# Writes the JUnit files of this project with Debian's pytest.
set -u
cd "$(dirname "$0")"
for fam in xunit1 xunit2; do
  /usr/bin/python3 -m pytest -p no:cacheprovider --continue-on-collection-errors -q \
    -o junit_family=$fam --junitxml=../junit-$fam.xml tests >/dev/null
  # Make the files independent of the machine.
  sed -i -E "s#$PWD#/project#g" ../junit-$fam.xml
  sed -i -E 's/ (timestamp|hostname)="[^"]*"//g; s/ time="[0-9.]+"/ time="0.001"/g; s#object at 0x[0-9a-f]+#object at 0x0#g' ../junit-$fam.xml
done
/usr/bin/python3 -m pytest -p no:cacheprovider --continue-on-collection-errors -q --collect-only tests 2>/dev/null | grep '::' > ../nodeids.txt

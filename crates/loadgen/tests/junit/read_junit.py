"""Validates a JUnit XML file against the Ant/Jenkins schema (JUnit.xsd,
beside this script) with xmlschema, then reads it with junitparser, as a
CI server would, and prints its test cases as JSON on one line."""

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import xmlschema
from junitparser import Error, Failure, JUnitXml, Skipped

schema = xmlschema.XMLSchema(Path(__file__).with_name("JUnit.xsd"))
schema.validate(sys.argv[1])

OUTCOMES = {Failure: "failure", Error: "error", Skipped: "skipped"}
# junitparser reads no suite's <system-out>; ElementTree does.
system_outs = [s.findtext("system-out") for s in ET.parse(sys.argv[1]).getroot()]
suites = []
for suite, system_out in zip(JUnitXml.fromfile(sys.argv[1]), system_outs):
    cases = []
    for case in suite:
        results = [
            {"outcome": OUTCOMES[type(r)], "message": r.message, "text": r.text}
            for r in case.result
        ]
        cases.append({"classname": case.classname, "name": case.name, "results": results})
    suites.append(
        {
            "name": suite.name,
            "tests": suite.tests,
            "failures": suite.failures,
            "errors": suite.errors,
            "skipped": suite.skipped,
            "hostname": suite.hostname,
            "timestamp": suite.timestamp,
            "properties": [[p.name, p.value] for p in suite.properties()],
            "system_out": system_out,
            "cases": cases,
        }
    )
print(json.dumps(suites))

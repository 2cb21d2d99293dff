#!/usr/bin/env node
// File: check_icaljs.js
// Parses an .ics file with ical.js (the parser of web calendar apps) and checks the item count and the
// VALARM count of an EXPECT.json (as tests/python/check_ics.py reads it). Exit 77 when ical.js is absent
// (1 under ICSBRIDGE_REQUIRE_ALL=1, as deploy/test.sh runs it).
//   check_icaljs.js FILE EXPECT.json NODE_MODULES_DIR
'use strict';
const fs = require('fs');
const path = require('path');

const [file, expectFile, modules] = process.argv.slice(2);
let ICAL;
try {
    ICAL = require(path.join(path.resolve(modules), 'ical.js'));
} catch (e) {
    const why = 'ical.js is not installed under ' + modules + ': npm install --prefix build ical.js@2';
    // deploy/test.sh installs it and sets ICSBRIDGE_REQUIRE_ALL=1: in CI a missing parser is a failure.
    if (process.env.ICSBRIDGE_REQUIRE_ALL === '1') {
        console.error('FAIL: ' + why + ' (ICSBRIDGE_REQUIRE_ALL=1)');
        process.exit(1);
    }
    console.log(why);
    process.exit(77);
}
if (ICAL.default) ICAL = ICAL.default;
const expect = JSON.parse(fs.readFileSync(expectFile, 'utf8'));
const failures = [];
let cal;
try {
    cal = new ICAL.Component(ICAL.parse(fs.readFileSync(file, 'utf8')));
} catch (e) {
    console.error('FAIL: ical.js cannot parse ' + file + ': ' + e.message);
    process.exit(1);
}
const items = cal.getAllSubcomponents('vevent').concat(cal.getAllSubcomponents('vtodo'));
if ('count' in expect && items.length !== expect.count)
    failures.push('expected ' + expect.count + ' items, ical.js found ' + items.length);
let alarms = 0;
for (const item of items) {
    alarms += item.getAllSubcomponents('valarm').length;
    // Every event's times must read as real dates in its own zone (a VTIMEZONE for each TZID).
    const ev = new ICAL.Event(item);
    if (item.name === 'vevent' && (!ev.startDate || isNaN(ev.startDate.toJSDate().getTime())))
        failures.push('an event without a readable start: ' + ev.uid);
}
if ('valarms' in expect && alarms !== expect.valarms)
    failures.push('expected ' + expect.valarms + ' VALARMs, ical.js found ' + alarms);
if (failures.length) {
    for (const f of failures) console.error('FAIL: ' + f);
    process.exit(1);
}
console.log('ical.js: ' + items.length + ' items, ' + alarms + ' VALARMs: OK');

// What every end-to-end script does once its tests are listed: launch Debian's Chromium, run
// each test (a test fails on an assertion or on an error the page reported meanwhile), print
// `ok` / `FAIL` per test and the counts, exit non-zero on a failure. E2E_ONLY=<regex> runs only
// the tests whose names match (while working on one).
import { chromium } from 'playwright-core';
import assert from 'node:assert/strict';
import path from 'node:path';
import { CHROMIUM } from './chromium.mjs';

export async function runTests(tests, problems, outDir) {
  const only = process.env.E2E_ONLY ? new RegExp(process.env.E2E_ONLY) : null;
  const chosen = only ? tests.filter((t) => only.test(t.name)) : tests;
  const browser = await chromium.launch({ ...CHROMIUM, headless: true });
  let failed = 0;
  for (const { name, fn } of chosen) {
    const started = problems.length;
    try {
      await fn(browser);
      assert.deepEqual(problems.slice(started), [], 'no errors in the page');
      console.log(`ok   ${name}`);
    } catch (e) {
      failed++;
      console.log(`FAIL ${name}\n     ${String(e.message).split('\n').join('\n     ')}`);
    }
  }
  await browser.close();
  console.log(`${chosen.length - failed} passed, ${failed} failed; screenshots in ${path.relative(process.cwd(), outDir)}/`);
  process.exit(failed ? 1 : 0);
}

// Screenshots of the records' part of the consumer page (docs/model.md §12) at desktop
// 1440×900, phone 390×844 and projector 1920×1080, for looking at it as a reader.
//   node tests/e2e/records-shots.mjs BASE_URL   → tests/e2e/output/records-*.png
import { chromium } from 'playwright-core';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHROMIUM } from './chromium.mjs';

const BASE = process.argv[2];
if (!BASE) throw new Error('usage: node tests/e2e/records-shots.mjs BASE_URL');
const OUT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'output');
const browser = await chromium.launch({ ...CHROMIUM, headless: true });
const shoot = async (name, options, suffix, act) => {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  await page.goto(BASE + suffix);
  await page.waitForFunction(() => document.querySelector('#main-chart canvas.overlay')?.dataset.frame);
  if (act) await act(page);
  await page.screenshot({ path: path.join(OUT, `records-${name}.png`) });
  return { page, context };
};
const preset = (file) => async (page) => { await page.selectOption('#preset', file); };
const toRecords = async (page) => { await page.locator('#records-title').scrollIntoViewIfNeeded(); };
let s = await shoot('desktop-spring-batch-1440x900', { viewport: { width: 1440, height: 900 } }, '', preset('spring-ackmode-batch'));
await toRecords(s.page);
await s.page.screenshot({ path: path.join(OUT, 'records-desktop-controls-1440x900.png') });
await s.page.locator('.presets').scrollIntoViewIfNeeded();
await s.page.screenshot({ path: path.join(OUT, 'records-desktop-preset-1440x900.png') });
await s.context.close();
s = await shoot('desktop-parallel-key-1440x900', { viewport: { width: 1440, height: 900 } }, '', preset('parallel-consumer-key'));
await s.context.close();
s = await shoot('desktop-dead-letter-dark-1440x900', { viewport: { width: 1440, height: 900 }, colorScheme: 'dark' }, '', preset('spring-default-error-handler-dead-letter'));
await s.context.close();
s = await shoot('desktop-stop-1440x900', { viewport: { width: 1440, height: 900 } }, '', preset('s12-failed-record-stops-the-partition'));
await s.context.close();
s = await shoot('phone-spring-batch-390x844', { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true }, '', preset('spring-ackmode-batch'));
await toRecords(s.page);
await s.page.screenshot({ path: path.join(OUT, 'records-phone-controls-390x844.png') });
await s.context.close();
s = await shoot('projector-1920x1080', { viewport: { width: 1920, height: 1080 } }, '#projector=1', preset('spring-ackmode-batch'));
await s.context.close();
await browser.close();

// What fails any end-to-end test, whichever script runs it.

/** Pushes onto `problems` every page error, console error or warning, and any request to
 *  another origin (no fonts, scripts or analytics from elsewhere) or outside `base`'s path
 *  (scripts/test-web.sh serves dist/ under a sub-path: every asset must come from under it). */
export function watch(page, problems, base) {
  const { origin, pathname: under } = new URL(base);
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('request', (r) => {
    if (/^(data|blob|about):/.test(r.url())) return;
    const url = new URL(r.url());
    if (url.origin !== origin) problems.push(`request to another origin: ${r.url()}`);
    else if (!url.pathname.startsWith(under)) problems.push(`request outside ${under}: ${r.url()}`);
  });
}

// The "your consumer" panel (issue 33), inlined into the consumer and group pages' HTML
// (index.html, group.html). The page's wasm shows only its section, a button and an empty
// #import-panel (crates/app/src/shell.rs, import_section); pressing the button fetches the
// import module (crates/import-page, built beside the consumer page; the group page, one
// level down, fetches the same copy), which draws the panel into #import-panel. The module
// is fetched ahead when the pointer or the focus comes to the button. Here rather than in
// the pages' wasm, where the same is a kilobyte (the pages' size budget).
(() => {
  const group = () => document.querySelector('.page.group') !== null;
  let module;
  const load = () => (module ??= import(new URL((group() ? '../' : '') + 'offset-window-import-page.js', document.baseURI).href)
    .then(async (m) => { await m.default(); return m; })
    .catch((e) => { module = undefined; throw e; }));
  const button = (e) => e.target.closest && e.target.closest('#import-open');
  for (const ahead of ['pointerover', 'focusin']) {
    document.addEventListener(ahead, (e) => { if (button(e)) load().catch(() => {}); });
  }
  document.addEventListener('click', (e) => {
    const open = button(e);
    const root = document.getElementById('import-panel');
    if (!open || !root) return;
    const label = open.textContent;
    open.disabled = true;
    open.textContent = 'Loading the import module…';
    load()
      .then((m) => {
        m.panel(root, group() ? 'group' : 'consumer');
        open.hidden = true;
        document.getElementById('import-text')?.focus();
      })
      .catch((err) => {
        open.disabled = false;
        open.textContent = label;
        const p = document.createElement('p');
        p.className = 'import-error';
        p.setAttribute('role', 'alert');
        p.textContent = location.protocol === 'file:'
          ? 'The offline copy has no import module: open the served page, or run offset-window import FILE.'
          : `The import module could not be loaded (${err && err.message ? err.message : err}): press the button to try again.`;
        root.replaceChildren(p);
      });
  });
})();

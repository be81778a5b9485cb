// The "your consumer" panel (issue 33), inlined into the consumer and group pages' HTML
// (index.html, group.html). The page's wasm shows only its section, a button and an empty
// #import-panel (crates/app/src/shell.rs, import_section); the button's first press fetches
// the import module (crates/import-page, built beside the consumer page; the group page,
// one level down, fetches the same copy), which draws the panel into #import-panel. Here
// rather than in the pages' wasm, where the same is a kilobyte (the pages' size budget).
document.addEventListener('click', (e) => {
  const open = e.target.closest && e.target.closest('#import-open');
  const root = document.getElementById('import-panel');
  if (!open || !root) return;
  const group = document.querySelector('.page.group') !== null;
  const label = open.textContent;
  open.disabled = true;
  open.textContent = 'Loading the import module…';
  import(new URL((group ? '../' : '') + 'offset-window-import-page.js', document.baseURI).href)
    .then(async (m) => {
      await m.default();
      m.panel(root, group ? 'group' : 'consumer');
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

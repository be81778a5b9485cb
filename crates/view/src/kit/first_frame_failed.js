// If the simulator never starts (its files did not arrive, or the browser refused them),
// the first frame says so instead of promising the controls "in a moment". Any error
// before the live page has replaced the first frame is such a failure; once it has, there
// is no .ff-wait left to change.
(() => {
  const failed = () => {
    const wait = document.querySelector('.first-frame .ff-wait');
    if (!wait || wait.id === 'ff-failed') return;
    wait.id = 'ff-failed';
    wait.setAttribute('role', 'alert');
    wait.innerHTML = '<h2>The controls could not start</h2><p>The simulator (WebAssembly) did not load, ' +
      'so the page stays at its defaults, drawn when it was built. Reloading may help; a browser ' +
      'without WebAssembly cannot run it.</p>';
  };
  addEventListener('error', failed, true);
  addEventListener('unhandledrejection', failed);
})();

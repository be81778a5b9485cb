// How the end-to-end scripts launch Debian's Chromium: playwright-core with an
// executablePath, never a downloaded browser; as root Chromium needs --no-sandbox.
export const CHROMIUM = {
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: [
    '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
    '--disable-component-update', '--no-first-run', '--disable-sync', '--disable-quic',
  ],
};

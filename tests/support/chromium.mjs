// The one way the project's Node scripts start a browser (the package,
// www and OAuth tests, the benchmark): Debian's Chromium (or $CHROMIUM),
// headless, never a downloaded one, with the flags that keep it quiet.
export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Launches Chromium through playwright-core's `chromium`; `options` add to
 * the launch options (or override them). */
export function launchChromium(chromium, options = {}) {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, timeout: 30_000, ...options });
}

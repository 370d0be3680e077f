// Debian's Chromium driven by playwright-core, launched the one way this
// machine allows: Playwright cannot download its own browser here, and
// without the background-networking flags Chromium's connections to Google's
// hosts are refused by the closed network, many at a time.
import { existsSync } from "node:fs";

export const CHROMIUM = "/usr/bin/chromium";

/** True when the browser is installed (the setup script installs it). */
export const hasChromium = existsSync(CHROMIUM);

/** Launches it headless (playwright-core is imported only when needed). */
export async function launchChromium() {
  const { chromium } = await import("playwright-core");
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

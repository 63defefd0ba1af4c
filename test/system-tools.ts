// Tests that need a system package (Chromium, promtool, MiniSat, LAMMPS, Python with SciPy) run
// where it is installed. Where it is not, they are skipped and say so loudly; under CI=true
// (where .ci/run installs them) a missing tool fails the file instead.
import { existsSync } from 'node:fs';

/** false when `path` exists (run the tests); otherwise the skip reason, printed loudly. Under
 * CI=true a missing tool throws: the tests are required there. */
export function needsSystemTool(path: string, what: string, install: string): string | false {
  if (existsSync(path)) return false;
  if (process.env.CI === 'true') throw new Error(`${path} is missing, and CI=true requires ${what}: ${install}`);
  const reason = `SKIPPED: ${what} need ${path}, which is not installed (${install})`;
  process.stderr.write(`\n*** ${reason} ***\n\n`);
  return reason;
}

/** Debian's Chromium, driven by playwright-core in the browser tests. */
export const CHROMIUM = '/usr/bin/chromium';

/** The skip reason of a browser test file (see needsSystemTool), or false when Chromium is here. */
export const needsChromium = (what: string): string | false => needsSystemTool(CHROMIUM, what, 'apt-get update && apt-get install -y chromium');

/** Chromium headless, as every browser test starts it (no sandbox as root, no background
 * networking: this machine's closed network refuses it). */
export async function launchChromium(): Promise<any> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu'] });
}

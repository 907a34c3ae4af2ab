import { expect, test, type Page } from "@playwright/test";
import { seedMerchant, signIn } from "./helpers";

// Issue 31: the security page on a phone names sessions like "Chrome em Android" and is no wider
// than the screen, at 375 px and 1280 px. Screenshots go to SHOTS for a person to look at.

const SHOTS = process.env.E2E_SHOTS_DIR ?? "test-results/screens-payer";
const PHONE = { width: 375, height: 812 };
const DESKTOP = { width: 1280, height: 900 };
const SIZES = [
  ["375", PHONE],
  ["1280", DESKTOP],
] as const;
const WINDOWS_EDGE = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.2592.87";
const ANDROID_CHROME = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36";

async function noHorizontalOverflow(page: Page, name: string) {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
  expect(scrollWidth, `${name}: the page is ${scrollWidth} px wide in a ${innerWidth} px window`).toBeLessThanOrEqual(innerWidth);
}

test.describe.configure({ mode: "serial" });
test.use({ actionTimeout: 15_000, navigationTimeout: 30_000 });

test("the security page names sessions like 'Chrome em Android', keeps the full user agent in a title, and fits a phone", async ({ browser, request }) => {
  const m = await seedMerchant(request, { companyName: "Loja Segura" });
  // Another session first, from a computer: listed beside this one, with its "Encerrar" button.
  const laptop = await browser.newContext({ userAgent: WINDOWS_EDGE });
  await signIn(await laptop.newPage(), m.email);
  await laptop.close();
  const context = await browser.newContext({ userAgent: ANDROID_CHROME, viewport: PHONE });
  const page = await context.newPage();
  try {
    await signIn(page, m.email);
    for (const [size, viewport] of SIZES) {
      await page.setViewportSize(viewport);
      await page.goto("/dashboard/security");
      const rows = page.getByTestId("session-row");
      await expect(rows).toHaveCount(2);
      const mine = rows.filter({ hasText: "Esta sessão" }).getByTestId("session-device");
      await expect(mine).toHaveText("Chrome em Android");
      await expect(mine).toHaveAttribute("title", ANDROID_CHROME);
      const other = rows.filter({ hasNotText: "Esta sessão" });
      await expect(other.getByTestId("session-device")).toHaveText("Edge em Windows");
      await expect(other.getByTestId("session-device")).toHaveAttribute("title", WINDOWS_EDGE);
      await expect(other.getByRole("button", { name: "Encerrar" })).toBeVisible();
      await expect(rows.filter({ hasText: "Mozilla/5.0" })).toHaveCount(0);
      await noHorizontalOverflow(page, `security@${size}`);
      await page.screenshot({ path: `${SHOTS}/security-${size}.png`, fullPage: true });
    }
  } finally {
    await context.close();
  }
});

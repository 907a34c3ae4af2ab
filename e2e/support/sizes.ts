import { expect, type Page } from "@playwright/test";

// The two windows every UX walk looks through: a phone (375 px, the narrowest common one) and a laptop.

export const PHONE = { width: 375, height: 812 };
export const DESKTOP = { width: 1280, height: 900 };
/** Each window under the name its screenshots carry. */
export const SIZES = [
  ["375", PHONE],
  ["1280", DESKTOP],
] as const;

/** Fails when the page is wider than its window: nothing may need a sideways scroll, least of all on a phone. */
export async function noHorizontalOverflow(page: Page, name: string) {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
  }));
  expect(scrollWidth, `${name}: the page is ${scrollWidth} px wide in a ${innerWidth} px window`).toBeLessThanOrEqual(
    innerWidth,
  );
}

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UI_DIR } from '../../../src/http/routes/ui.js';

/** The `--name: #rrggbb` custom properties of the stylesheet's :root. */
function palette(): Map<string, string> {
  const css = readFileSync(join(UI_DIR, 'style.css'), 'utf8');
  return new Map([...css.matchAll(/--([a-z-]+):\s*(#[0-9a-f]{6})\s*;/gi)].map((m) => [m[1]!, m[2]!]));
}

/** WCAG 2 relative luminance and contrast ratio. */
function luminance(hex: string): number {
  const channel = (i: number): number => {
    const c = parseInt(hex.slice(1 + 2 * i, 3 + 2 * i), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(0) + 0.7152 * channel(1) + 0.0722 * channel(2);
}
const contrast = (a: string, b: string): number => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
};

describe('the dashboard’s colours', () => {
  const colours = palette();
  const pairs: [string, string][] = [
    ['ink', 'paper'],
    ['ink', 'band'],
    ['muted', 'paper'],
    ['muted', 'band'],
    ['accent', 'paper'],
    ['accent', 'band'],
    ['accent', 'work-bg'],
    ['paper', 'accent'],
    ['bad', 'paper'],
    ...['ok', 'bad', 'wait', 'work', 'gone'].map((c): [string, string] => [c, `${c}-bg`]),
  ];

  it.each(pairs)('text in --%s on --%s has at least 4.5:1 contrast (WCAG AA)', (text, background) => {
    const [fg, bg] = [colours.get(text), colours.get(background)];
    expect(fg, text).toBeDefined();
    expect(bg, background).toBeDefined();
    expect(contrast(fg!, bg!)).toBeGreaterThanOrEqual(4.5);
  });

  it('draws the focus ring at 3:1 or more against the page (WCAG non-text contrast)', () => {
    expect(contrast(colours.get('focus')!, colours.get('paper')!)).toBeGreaterThanOrEqual(3);
  });
});

import type { StateCategory } from '../../../machines/index.js';

/** The shapes and measures of a laid-out lifecycle diagram (see diagram-layout.ts). */
export const NODE_WIDTH = 124;
export const NODE_HEIGHT = 44;
export const GAP_X = 48;
export const GAP_Y = 52;
export const LANE = 11;
export const PAD = 16;
/** Room above the first row for the initial-state marker. */
export const TOP = 30;
/** Room beside the lanes for labels and self loops. */
export const LABEL_ROOM = 128;

export interface LayoutNode {
  state: string;
  row: number;
  x: number;
  y: number;
  initial: boolean;
  /** Nothing leaves it (its row's `final`). */
  final: boolean;
  /** How it is coloured (its row's `category`). */
  category: StateCategory;
}

export interface LayoutLabel {
  x: number;
  y: number;
  anchor: 'start' | 'end';
  text: string;
}

export interface LayoutEdge {
  from: string;
  to: string;
  /** Event names of every table edge from `from` to `to`, in table order. */
  events: string[];
  /** Each table edge in words, guards included (a tooltip). */
  title: string;
  kind: 'straight' | 'lane' | 'self';
  /** SVG path data. */
  path: string;
  /** Absent when another edge from the same side of the same state already shows the same text. */
  label?: LayoutLabel;
}

export interface DiagramLayout {
  width: number;
  height: number;
  initial: string;
  nodes: LayoutNode[];
  edges: LayoutEdge[];
}

/** Table edges between the same two states, merged into one arrow. */
export interface Merged {
  from: string;
  to: string;
  events: string[];
  titles: string[];
}
export type Side = 'left' | 'right';

/** Where a state's centre is. */
export type At = (s: string) => { x: number; y: number };
/** Gives a label, or undefined when the same text is already shown from the same side of that state. */
export type Label = (node: string, side: string, value: LayoutLabel) => LayoutLabel | undefined;

export const round = (n: number): number => Math.round(n * 10) / 10;

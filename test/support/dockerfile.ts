/**
 * A small Dockerfile reader for static checks: parser directives, comments, line continuations,
 * `--flag=value` options, and the exec (JSON) and shell forms. No variable expansion; heredocs are
 * refused rather than misread.
 */

export interface Instruction {
  /** Upper-case keyword: FROM, COPY, RUN… */
  keyword: string;
  /** 1-based line the instruction starts on. */
  line: number;
  /** Leading `--name=value` options (`--chown`, `--from`, `--interval`…); a bare `--name` is `'true'`. */
  flags: Record<string, string>;
  /** The arguments after the flags, continuations joined. */
  args: string;
  /** The arguments as a list when written in exec (JSON) form. */
  exec?: string[];
}

/** A command as an instruction gives it: an argv, or a string for `/bin/sh -c`. */
export type Command = { form: 'exec'; argv: string[] } | { form: 'shell'; script: string };

const DIRECTIVE = /^#\s*([a-zA-Z]+)\s*=\s*(\S+)\s*$/;
const FLAG = /^--([\w-]+)(?:=(\S*))?(?:\s+|$)/;

/** The escape character from the parser directives at the top of the file (default `\`). */
function escapeOf(lines: string[]): string {
  for (const line of lines) {
    const directive = DIRECTIVE.exec(line);
    if (!directive) break;
    if (directive[1]?.toLowerCase() === 'escape') return directive[2] ?? '\\';
  }
  return '\\';
}

/** Splits leading `--name=value` options off the arguments. */
function takeFlags(text: string): { flags: Record<string, string>; rest: string } {
  const flags: Record<string, string> = {};
  let rest = text.trim();
  let flag: RegExpExecArray | null;
  while ((flag = FLAG.exec(rest))) {
    flags[flag[1] ?? ''] = flag[2] ?? 'true';
    rest = rest.slice(flag[0].length);
  }
  return { flags, rest };
}

/** The JSON array of strings the text is, when it is one (Docker falls back to shell form otherwise). */
export function execForm(text: string): string[] | undefined {
  if (!text.startsWith('[')) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value;
  } catch {
    // Not JSON: Docker reads it as shell form.
  }
  return undefined;
}

/** Parses a Dockerfile into its instructions, in order. */
export function parseDockerfile(text: string): Instruction[] {
  const lines = text.split(/\r?\n/);
  const escape = escapeOf(lines);
  const instructions: Instruction[] = [];
  let pending: { line: number; text: string } | undefined;
  lines.forEach((raw, index) => {
    // Comment and empty lines are dropped before continuations are joined, even inside an instruction.
    if (/^\s*#/.test(raw) || raw.trim() === '') return;
    const continued = raw.trimEnd().endsWith(escape);
    const body = continued ? raw.trimEnd().slice(0, -escape.length) : raw;
    pending = pending ? { line: pending.line, text: pending.text + body } : { line: index + 1, text: body };
    if (continued) return;
    instructions.push(toInstruction(pending.text, pending.line));
    pending = undefined;
  });
  if (pending) instructions.push(toInstruction(pending.text, pending.line));
  return instructions;
}

function toInstruction(text: string, line: number): Instruction {
  const match = /^\s*(\S+)\s*([\s\S]*)$/.exec(text);
  const keyword = (match?.[1] ?? '').toUpperCase();
  const { flags, rest } = takeFlags(match?.[2] ?? '');
  if (/<<-?\s*["']?\w+/.test(rest) && ['RUN', 'COPY', 'ADD'].includes(keyword)) {
    throw new Error(`Dockerfile line ${line}: heredocs are not supported by this reader`);
  }
  const exec = execForm(rest);
  return exec ? { keyword, line, flags, args: rest, exec } : { keyword, line, flags, args: rest };
}

/** The command of a RUN, CMD or ENTRYPOINT (or what follows `HEALTHCHECK … CMD`). */
export function commandOf(instruction: Pick<Instruction, 'args' | 'exec'>): Command {
  return instruction.exec
    ? { form: 'exec', argv: instruction.exec }
    : { form: 'shell', script: instruction.args };
}

/** A HEALTHCHECK's options and command; undefined for `HEALTHCHECK NONE`. */
export function healthcheckOf(
  instruction: Instruction,
): { flags: Record<string, string>; command: Command } | undefined {
  const cmd = /^CMD\s+([\s\S]*)$/i.exec(instruction.args);
  if (!cmd) return undefined;
  const args = (cmd[1] ?? '').trim();
  const exec = execForm(args);
  return { flags: instruction.flags, command: commandOf(exec ? { args, exec } : { args }) };
}

/** A COPY or ADD: its sources and destination (shell form splits on whitespace). */
export function copyOf(instruction: Instruction): { sources: string[]; dest: string } {
  const parts = instruction.exec ?? instruction.args.split(/\s+/).filter(Boolean);
  if (parts.length < 2) throw new Error(`line ${instruction.line}: ${instruction.keyword} needs a source`);
  return { sources: parts.slice(0, -1), dest: parts.at(-1) ?? '' };
}

/** The variables of an ENV: `K=V …` (values may be quoted) or the legacy `K V`. */
export function envOf(instruction: Instruction): Record<string, string> {
  const text = instruction.args.trim();
  if (!/^[^\s=]+=/.test(text)) {
    const legacy = /^(\S+)\s+([\s\S]*)$/.exec(text);
    return legacy ? { [legacy[1] ?? '']: legacy[2] ?? '' } : {};
  }
  const env: Record<string, string> = {};
  for (const pair of text.matchAll(/([^\s=]+)=("(?:[^"\\]|\\.)*"|'[^']*'|\S*)/g)) {
    const value = pair[2] ?? '';
    env[pair[1] ?? ''] = /^["']/.test(value) ? value.slice(1, -1).replace(/\\(.)/g, '$1') : value;
  }
  return env;
}

/** The instructions of the last build stage (what the image runs). */
export function finalStage(instructions: Instruction[]): Instruction[] {
  const from = instructions.findLastIndex((instruction) => instruction.keyword === 'FROM');
  return from === -1 ? instructions : instructions.slice(from);
}

/**
 * What the container runs: ENTRYPOINT and CMD combined as Docker does (an exec-form ENTRYPOINT gets
 * the CMD as arguments; a shell-form one ignores it). Shell forms become `/bin/sh -c <script>`.
 */
export function containerArgv(stage: Instruction[]): string[] {
  const argvOf = (instruction: Instruction | undefined): string[] => {
    if (!instruction) return [];
    const command = commandOf(instruction);
    return command.form === 'exec' ? command.argv : ['/bin/sh', '-c', command.script];
  };
  const entrypoint = stage.findLast((instruction) => instruction.keyword === 'ENTRYPOINT');
  const cmd = stage.findLast((instruction) => instruction.keyword === 'CMD');
  if (entrypoint && !entrypoint.exec) return argvOf(entrypoint);
  return [...argvOf(entrypoint), ...argvOf(cmd)];
}

import { Lexer, Parser } from 'yaml';
import { ProblemError } from './problem';

/**
 * Deepest nesting of arrays and objects a request body may have. Core caps a payload at 64
 * levels; a bundle wraps it in three more (`routines[i].payload`), so 100 leaves room and still
 * keeps every recursive step after parsing (merge patch, validation, copies) far from the stack's
 * end: 10,000 levels overflowed it.
 */
export const MAX_BODY_DEPTH = 100;

export function bodyTooDeep(): ProblemError {
  const message = `is nested deeper than ${MAX_BODY_DEPTH} levels of arrays and objects`;
  return new ProblemError(400, `invalid request: body ${message}`, [{ path: 'body', message }]);
}

/**
 * True when `value` (parsed JSON or YAML) nests arrays and objects deeper than `limit`. Walks
 * with its own stack (no recursion) and stops at the first node past the limit.
 */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

interface CstNode {
  type?: string;
  value?: CstNode;
  items?: { key?: CstNode | null; value?: CstNode | null }[];
}

/**
 * True when YAML `text` nests collections deeper than `limit`, decided before the yaml library
 * composes it: its composer recurses per level (5,000 nested `[` exhausted the heap of a 1 MiB
 * body). Flow collections (`[[[`) are counted on the lexer's tokens and stop it early; block
 * nesting (`- - -`, indentation) on the parser's syntax tree, which both build without recursion.
 */
export function yamlNestedDeeperThan(text: string, limit: number): boolean {
  let flow = 0;
  for (const token of new Lexer().lex(text)) {
    if (token === '[' || token === '{') {
      if (++flow > limit) return true;
    } else if (token === ']' || token === '}') flow = Math.max(0, flow - 1);
  }
  for (const doc of new Parser().parse(text) as Iterable<CstNode>) {
    const stack: [CstNode | null | undefined, number][] = [[doc.value, 1]];
    while (stack.length > 0) {
      const [node, depth] = stack.pop()!;
      if (!node?.items) continue;
      if (depth > limit) return true;
      for (const item of node.items) stack.push([item.key, depth + 1], [item.value, depth + 1]);
    }
  }
  return false;
}

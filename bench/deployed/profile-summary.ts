/**
 * Summarises V8 CPU profiles (.cpuprofile, e.g. the producer-cpu bench's): self time by function
 * (name, file and line) and by where the code lives (a package under node_modules, a lib of this
 * repository, node's own code, or V8's: garbage collector, program), as % of the busy samples (idle
 * left out). The profiler samples by the wall clock, so on a loaded machine a sample also counts
 * time the thread waited for a core: compare shares, not sampled times. `--cpu-us X` turns shares
 * into µs per call, given X µs of CPU per call measured apart (the bench prints it).
 * Usage: node dist/bench/deployed/profile-summary.js [--cpu-us X] [--top 40] <a.cpuprofile> [...]
 * Several files are summed (e.g. the rounds of one build).
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** `node_modules/<pkg>`, `libs/<lib>`, `node:` or V8's own (program, garbage collector). */
function placeOf(url: string, name: string): string {
  if (!url) return `(${name || 'native'})`.replace(/^\(\((.*)\)\)$/, '($1)');
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  const lib = /\/(libs|apps|bench)\/([^/]+)/.exec(url);
  if (lib) return `${lib[1]}/${lib[2]}`;
  if (url.startsWith('node:')) return 'node:';
  return url;
}

function shortUrl(url: string): string {
  return url
    .replace(/^.*node_modules\//, '')
    .replace(/^.*\/dist\//, '')
    .replace(/^file:\/\//, '');
}

function main(): void {
  const args = process.argv.slice(2);
  let cpuUs = 0;
  let top = 40;
  const files: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--cpu-us') cpuUs = Number(args[++i]);
    else if (args[i] === '--top') top = Number(args[++i]);
    else files.push(args[i]!);
  }
  const byFunction = new Map<string, number>();
  const byPlace = new Map<string, number>();
  let busyUs = 0;
  for (const file of files) {
    const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
    const nodes = new Map(p.nodes.map((n) => [n.id, n]));
    // Each sample's time is the delta to the next one (the last sample gets none).
    p.samples.forEach((id, i) => {
      const us = p.timeDeltas[i + 1] ?? 0;
      const { functionName, url, lineNumber } = nodes.get(id)!.callFrame;
      if (functionName === '(idle)') return;
      const fn = `${functionName || '(anonymous)'} ${shortUrl(url)}${url ? `:${lineNumber + 1}` : ''}`;
      byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
      const place = placeOf(url, functionName);
      byPlace.set(place, (byPlace.get(place) ?? 0) + us);
      busyUs += us;
    });
  }
  const perCall = (us: number) => (cpuUs ? `${((us / busyUs) * cpuUs).toFixed(2).padStart(6)} µs/call` : '');
  const show = (title: string, m: Map<string, number>, n: number) => {
    console.log(`\n${title}`);
    for (const [k, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, n)) {
      console.log(`${((100 * us) / busyUs).toFixed(1).padStart(6)} %  ${perCall(us)}  ${k}`);
    }
  };
  console.log(`${files.length} profile(s), ${(busyUs / 1000).toFixed(0)} ms busy`);
  show('self time by place', byPlace, 25);
  show('self time by function', byFunction, top);
}

main();

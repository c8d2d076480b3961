/**
 * House rules for docker/Dockerfile beyond dockerfile-utils' validator: the hadolint checks that
 * matter here plus what the deployment and the Kubernetes manifests rely on (numeric non-root USER, an init
 * as PID 1, no npm at run time). Each returns the problems it finds, so a test can feed it a broken
 * Dockerfile and see the rule fire.
 */
import { DockerfileParser, type Instruction } from 'dockerfile-ast';
import { ValidationSeverity, type ValidatorSettings, validate } from 'dockerfile-utils';
import { nodeLineSupport } from '../../libs/platform/src/node-support';

/** dockerfile-utils with every check an error: a warning must not slip through CI either. */
export function validatorProblems(text: string): string[] {
  const all = ValidationSeverity.ERROR;
  const settings: ValidatorSettings = {
    deprecatedMaintainer: all,
    directiveCasing: all,
    emptyContinuationLine: all,
    instructionCasing: all,
    instructionCmdMultiple: all,
    instructionEntrypointMultiple: all,
    instructionHealthcheckMultiple: all,
    instructionJSONInSingleQuotes: all,
    instructionWorkdirRelative: all,
  };
  return validate(text, settings).map(
    (d) => `line ${d.range.start.line + 1}: ${d.message} (dockerfile-utils ${String(d.code)})`,
  );
}

interface Stage {
  name: string;
  image: string;
  instructions: Instruction[];
}

function stages(text: string): Stage[] {
  const out: Stage[] = [];
  for (const ins of DockerfileParser.parse(text).getInstructions()) {
    if (ins.getKeyword() === 'FROM') {
      const args = ins.getArguments().map((a) => a.getValue());
      out.push({ name: args[2] ?? String(out.length), image: args[0] ?? '', instructions: [] });
    } else out[out.length - 1]?.instructions.push(ins);
  }
  return out;
}

const jsonOf = (ins: Instruction): string[] | undefined => {
  const strings = (ins as Instruction & { getJSONStrings?: () => { getJSONValue(): string }[] }).getJSONStrings?.();
  return strings?.length ? strings.map((s) => s.getJSONValue()) : undefined;
};
const flagsOf = (ins: Instruction): [string, string | null][] =>
  (ins as Instruction & { getFlags?: () => { getName(): string; getValue(): string | null }[] })
    .getFlags?.()
    .map((f) => [f.getName(), f.getValue()]) ?? [];
const at = (ins: Instruction) => `line ${ins.getRange().start.line + 1}`;

/** `now` decides which Node.js lines have ended (the image must not ship one that has). */
export function houseRuleProblems(text: string, now = Date.now()): string[] {
  const problems: string[] = [];
  const all = stages(text);
  const runtime = all[all.length - 1];
  if (!runtime || all.length < 2) return ['a multi-stage build is expected: build with dev deps, runtime without'];
  const every = all.flatMap((s) => s.instructions);

  // Reproducible, pinned-enough bases (hadolint DL3006/DL3007): a tag, never `latest`.
  for (const s of all) {
    const resolved = s.image.replace(/\$\{?NODE_IMAGE\}?/, /ARG NODE_IMAGE=(\S+)/.exec(text)?.[1] ?? '');
    if (!/:[^:]+$/.test(resolved) || /:latest$/.test(resolved))
      problems.push(`stage ${s.name}: base ${resolved} has no tag or is latest`);
    // A Node.js line past its end of life gets no security fixes; the apps warn at start on one.
    const node = /^node:(\d+)/.exec(resolved);
    if (node) {
      const line = nodeLineSupport(node[1]!, now);
      if (line.endOfLife === undefined)
        problems.push(`stage ${s.name}: base ${resolved}: Node.js ${line.line} is not a known line`);
      else if (line.ended)
        problems.push(
          `stage ${s.name}: base ${resolved}: Node.js ${line.line} reached end of life on ${line.endOfLife}`,
        );
    }
  }
  for (const ins of every) {
    const kw = ins.getKeyword();
    const content = ins.getArgumentsContent() ?? '';
    if (kw === 'ADD') problems.push(`${at(ins)}: ADD; use COPY (hadolint DL3020)`);
    if (kw === 'WORKDIR' && !content.trim().startsWith('/'))
      problems.push(`${at(ins)}: WORKDIR is not absolute (DL3000)`);
    if ((kw === 'ARG' || kw === 'ENV') && /(TOKEN|PASSWORD|SECRET|_KEY)\b/i.test(content)) {
      problems.push(`${at(ins)}: ${kw} looks like a secret; secrets never go into an image`);
    }
    if (kw === 'RUN') {
      if (/\bnpm (install|i)\b/.test(content))
        problems.push(`${at(ins)}: npm install; use npm ci (the lockfile decides)`);
      if (/apt-get install/.test(content)) {
        if (!/--no-install-recommends/.test(content))
          problems.push(`${at(ins)}: apt-get install without --no-install-recommends (DL3015)`);
        if (!/rm -rf \/var\/lib\/apt\/lists/.test(content)) problems.push(`${at(ins)}: apt lists not removed (DL3009)`);
        if (!/\s-y\b/.test(content)) problems.push(`${at(ins)}: apt-get install without -y (DL3014)`);
      }
      if (/\bsudo\b/.test(content)) problems.push(`${at(ins)}: sudo (DL3004)`);
      if (/(^|\s)cd\s/.test(content)) problems.push(`${at(ins)}: cd in RUN; use WORKDIR (DL3003)`);
    }
  }

  const rt = runtime.instructions;
  const last = (kw: string) => rt.filter((i) => i.getKeyword() === kw).pop();
  const user = last('USER');
  const uid = user?.getArgumentsContent()?.trim() ?? '';
  if (!/^[1-9]\d*(:[1-9]\d*)?$/.test(uid)) {
    problems.push(
      `runtime USER "${uid || '(none: root)'}" is not a numeric non-root uid (Kubernetes runAsNonRoot needs a number)`,
    );
  }
  const entry = last('ENTRYPOINT');
  const cmd = last('CMD');
  const entryJson = entry && jsonOf(entry);
  const cmdJson = cmd && jsonOf(cmd);
  if (!entryJson || !cmdJson)
    problems.push('runtime ENTRYPOINT and CMD must use the exec (JSON) form (DL3025): signals reach the init');
  else {
    if (!/(^|\/)(tini|dumb-init)$/.test(entryJson[0] ?? ''))
      problems.push(`ENTRYPOINT ${JSON.stringify(entryJson)} does not start an init (tini or dumb-init) as PID 1`);
    if (entryJson[entryJson.length - 1] !== 'node')
      problems.push(`ENTRYPOINT ${JSON.stringify(entryJson)} does not end in node: the command would not pick the app`);
    if (!/^dist\/apps\/[a-z]+\/main\.js$/.test(cmdJson[0] ?? '') || cmdJson.length !== 1)
      problems.push(`CMD ${JSON.stringify(cmdJson)} is not one app path dist/apps/<app>/main.js`);
    if ([...entryJson, ...cmdJson].some((a) => /^(npm|npx|yarn|pnpm)$|\/(npm|npx|yarn|pnpm)$/.test(a)))
      problems.push('a package manager in ENTRYPOINT/CMD: it swallows SIGTERM and is not needed at run time');
  }
  if (!rt.some((i) => i.getKeyword() === 'ENV' && /NODE_ENV=production/.test(i.getArgumentsContent() ?? ''))) {
    problems.push('runtime stage does not set NODE_ENV=production');
  }
  const exposed = rt
    .filter((i) => i.getKeyword() === 'EXPOSE')
    .flatMap((i) => i.getArguments().map((a) => a.getValue()));
  for (const port of ['3000', '3001', '3002'])
    if (!exposed.includes(port)) problems.push(`runtime does not EXPOSE ${port}`);
  const labels = rt
    .filter((i) => i.getKeyword() === 'LABEL')
    .map((i) => i.getArgumentsContent() ?? '')
    .join(' ');
  for (const l of ['title', 'description', 'licenses', 'version']) {
    if (!labels.includes(`org.opencontainers.image.${l}=`))
      problems.push(`runtime lacks the OCI label org.opencontainers.image.${l}`);
  }
  // The runtime stage takes built output and production dependencies from the other stages; from the
  // context only the package manifest and the example policy, never sources or the lockfile's dev tree.
  for (const ins of rt.filter((i) => i.getKeyword() === 'COPY')) {
    const from = flagsOf(ins).find(([n]) => n === 'from')?.[1];
    const args = ins.getArguments().map((a) => a.getValue());
    const srcs = args.slice(0, -1);
    if (from === undefined && srcs.some((s) => !['package.json', 'examples/drover.yaml'].includes(s))) {
      problems.push(`${at(ins)}: the runtime stage copies ${srcs.join(' ')} from the context`);
    }
    if (from !== undefined && flagsOf(ins).some(([n]) => n === 'chown')) {
      problems.push(`${at(ins)}: files owned by the app user could be changed by it; keep them root-owned`);
    }
  }
  return problems;
}

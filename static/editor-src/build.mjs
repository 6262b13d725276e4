// Bundle editor.js with esbuild into static/vendor/codemirror-bundle-<version>.min.js,
// <version> being this package's version (package.json; bump it with any change to the
// bundle). The first line of the bundle names every package in it with its version, as
// package-lock.json pins it (tests/web/test_vendor.py compares the two), and
// codemirror-bundle-<version>-LICENSES.txt holds each one's licence text.
// Run through build.sh, which installs the locked packages first.
import { readFileSync, writeFileSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";

const here = new URL(".", import.meta.url).pathname;
const vendor = join(here, "..", "vendor");
const own = JSON.parse(readFileSync(join(here, "package.json"), "utf8"));
const lock = JSON.parse(readFileSync(join(here, "package-lock.json"), "utf8"));
const name = `codemirror-bundle-${own.version}`;

const result = await build({
  entryPoints: [join(here, "editor.js")],
  bundle: true,
  minify: true,
  format: "iife",
  globalName: "CM",
  target: "es2020",
  legalComments: "none",
  charset: "utf8",
  metafile: true,
  write: false,
  absWorkingDir: here,
});

// The packages whose code is in the bundle: node_modules/<name>/... of the inputs that
// contributed bytes.
const output = Object.values(result.metafile.outputs)[0];
const packages = new Set();
for (const [path, input] of Object.entries(output.inputs)) {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path);
  if (match && input.bytesInOutput > 0) packages.add(match[1]);
}
const sorted = [...packages].sort();
const versions = sorted.map((pkg) => `${pkg}@${lock.packages[`node_modules/${pkg}`].version}`);

const header = `/*! ${name}: CodeMirror 6 for Skill Editor, built by static/editor-src/build.sh `
  + `with esbuild@${lock.packages["node_modules/esbuild"].version}. Packages: `
  + `${versions.join(" ")}. Licences: ${name}-LICENSES.txt */\n`;
const code = new TextDecoder().decode(result.outputFiles[0].contents);

let licences = `Licences of the packages bundled in ${name}.min.js\n`;
for (const pkg of sorted) {
  const dir = join(here, "node_modules", pkg);
  const meta = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const file = readdirSync(dir).find((f) => /^licen[cs]e/i.test(f));
  licences += `\n${"=".repeat(72)}\n${pkg}@${meta.version} (${meta.license})\n${"=".repeat(72)}\n\n`;
  licences += readFileSync(join(dir, file), "utf8").trim() + "\n";
}

// One bundle at a time: an older version's files go.
for (const file of readdirSync(vendor)) {
  if (file.startsWith("codemirror-bundle-")) rmSync(join(vendor, file));
}
writeFileSync(join(vendor, `${name}.min.js`), header + code);
writeFileSync(join(vendor, `${name}-LICENSES.txt`), licences);
console.log(`${name}.min.js: ${Buffer.byteLength(header + code)} bytes, ${sorted.length} packages`);

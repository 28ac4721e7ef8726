// Run notebooks in Pyodide under Node: `node pyodide.mjs JOB.json` (see tests/lite/run.py).
// JOB: {pyodide, site_packages, drive, runner, notebooks: [{path, cwd}], out, compile}
// The site-packages folder (wheels unpacked by docs/lite/build.py) is mounted from the host;
// the notebooks' files are copied into Pyodide's in-memory file system, so nothing a notebook
// writes reaches the repository.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const job = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const { loadPyodide } = await import(pathToFileURL(path.join(job.pyodide, "pyodide.mjs")).href);
const started = Date.now();
const pyodide = await loadPyodide({ indexURL: job.pyodide + "/", env: job.env || {} });
const FS = pyodide.FS;
FS.mkdirTree("/lite/site-packages");
FS.mount(FS.filesystems.NODEFS, { root: job.site_packages }, "/lite/site-packages");

function copyIn(hostDir, fsDir) {
  FS.mkdirTree(fsDir);
  for (const entry of fs.readdirSync(hostDir, { withFileTypes: true })) {
    const host = path.join(hostDir, entry.name);
    if (entry.isDirectory()) copyIn(host, fsDir + "/" + entry.name);
    else FS.writeFile(fsDir + "/" + entry.name, fs.readFileSync(host));
  }
}
copyIn(job.drive, "/drive");
FS.writeFile("/lite/in_pyodide.py", fs.readFileSync(job.runner));
pyodide.runPython(`
import sys
sys.path[:0] = ["/lite/site-packages", "/lite"]
`);
if (job.compile) {  // write __pycache__ into the mounted folder once: later loads are faster
  pyodide.runPython(`
import compileall
compileall.compile_dir("/lite/site-packages", quiet=1, workers=1)
`);
}
const loaded = Date.now();
const results = [];
for (const nb of job.notebooks) {
  const t = Date.now();
  const bootstrap = job.bootstrap ? job.bootstrap + "\n" : "";
  try {
    const out = await pyodide.runPythonAsync(`
${bootstrap}import in_pyodide
await in_pyodide.run_notebook(${JSON.stringify(nb.path)}, ${JSON.stringify(nb.cwd)})
`);
    const result = JSON.parse(out);
    result.seconds = (Date.now() - t) / 1000;
    results.push(result);
  } catch (err) {
    results.push({ path: nb.path, crashed: String(err), seconds: (Date.now() - t) / 1000 });
  }
  process.stderr.write(`pyodide: ${nb.path} ${(Date.now() - t) / 1000} s\n`);
}
fs.writeFileSync(job.out, JSON.stringify({
  load_seconds: (loaded - started) / 1000,
  python: pyodide.runPython("import sys; sys.version.split()[0]"),
  pyodide: pyodide.version,
  results,
}, null, 1));
process.exit(0);

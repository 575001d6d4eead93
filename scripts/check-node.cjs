// The preinstall, prestart and precli scripts: on whatever Node the machine has, one line saying how to get
// Node 24 instead of a SyntaxError from the service, so plain ES5 CommonJS. package.json's devEngines only warns
// (npm 10.9 and newer print it first): refused there, npm would stop before any script of the project printed this
// line. So `npm start` and `npm run cli` end with it; `npm install` installs the dependencies first (a root
// preinstall runs after them) and then ends with it and npm's own lines on the failed script.
'use strict';

var path = require('path');

var manifest = require(path.join(__dirname, '..', 'package.json'));
var required = /^>=\s*(\d+)\.(\d+)$/.exec(manifest.engines.node);
if (!required) throw new Error('scripts/check-node.cjs reads engines.node as ">=MAJOR.MINOR", found "' + manifest.engines.node + '"');

/** The refusal for a Node of version `found` (e.g. "20.20.2") at `execPath`, or null when it is recent enough. */
function refusal(found, execPath) {
  var parts = found.split('.');
  var major = Number(parts[0]);
  var minor = Number(parts[1]);
  var neededMajor = Number(required[1]);
  var neededMinor = Number(required[2]);
  if (major > neededMajor || (major === neededMajor && minor >= neededMinor)) return null;
  return (
    manifest.name + ' needs Node.js >= ' + neededMajor + '.' + neededMinor + '; this is Node ' + found + ' (' + execPath + '). ' +
    'Install Node ' + neededMajor + ' LTS: nvm install ' + neededMajor + ' (see .nvmrc), or npm install --prefix .tools/node node@' + neededMajor +
    ' && export PATH="$PWD/.tools/node/node_modules/.bin:$PATH", or https://nodejs.org/en/download'
  );
}

module.exports = { refusal: refusal };

if (require.main === module) {
  var message = refusal(process.versions.node, process.execPath);
  if (message) {
    process.stderr.write(message + '\n');
    process.exit(1);
  }
}

// TypeDoc reads the sources through TypeScript's JS API, which TypeScript 7 (the workspace's
// compiler) does not have: its peer is replaced by a TypeScript 6 of its own.
module.exports = {
  hooks: {
    readPackage(pkg) {
      if (pkg.name === 'typedoc') {
        delete pkg.peerDependencies?.typescript;
        pkg.dependencies = { ...pkg.dependencies, typescript: '6.0.3' };
      }
      return pkg;
    },
  },
};

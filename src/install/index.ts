// Installing skills from a repository or a shared file: fetch, scan, review, pin, distribute. The one entry to
// the folder for the app, the adapters and the CLI.
export { Installer } from './installer.ts';
export { InstalledSkills } from './installedSkills.ts';
export { parseInstallCommand, INSTALL_USAGE, type InstallCommand } from './installCommand.ts';
export { type InstallPlace, runInstallCommand } from './chatCommand.ts';
export { stagingLifetimeMs, sweepLeftovers } from './leftovers.ts';

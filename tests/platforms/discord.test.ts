import { describePlatformContract } from './contract.ts';
import { discordDriver } from './discordDriver.ts';

describePlatformContract('Discord', discordDriver);

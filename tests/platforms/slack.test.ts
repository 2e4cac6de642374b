import { describePlatformContract } from './contract.ts';
import { slackDriver } from './slackDriver.ts';

describePlatformContract('Slack', slackDriver);

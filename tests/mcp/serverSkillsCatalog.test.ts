// A server's skills in a Slack thread, the server over stdio in the sandbox (the cases: serverSkillsCatalogCases.ts).
import { serverSkillsCases } from './serverSkillsCatalogCases.ts';

serverSkillsCases('stdio');

// A server's skills in a Slack thread, the same server over Streamable HTTP (the cases: serverSkillsCatalogCases.ts).
import { serverSkillsCases } from './serverSkillsCatalogCases.ts';

serverSkillsCases('http');

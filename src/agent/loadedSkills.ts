// The skills loaded in a chat, as every run of the chat sees them: read-only at /skills/<id>, each the verified
// copy of the content it was loaded at. A skill whose files changed since is left out (loading it again brings
// it back at its new content), so a run never shows bytes nobody activated.
// An MCP server's skill is mounted under its plain mount name (`releases.release-notes`, sandboxPaths.ts).
import { skillMountName } from '../config/sandboxPaths.ts';
import type { SkillMount } from '../exec/types.ts';
import { activeSkills } from '../lifecycle/chatSkills.ts';
import type { ToolDeps, TurnContext } from './turnContext.ts';
import { skillOfTurn } from './turnServerSkills.ts';

export async function loadedSkillMounts(deps: Pick<ToolDeps, 'store'>, turn: Pick<TurnContext, 'chatId' | 'snapshot' | 'serverSkills'>): Promise<SkillMount[]> {
  const mounts: SkillMount[] = [];
  for (const entry of await activeSkills(deps.store, turn.chatId)) {
    const skill = await skillOfTurn(turn, entry.id);
    if (skill !== undefined && skill.hash === entry.hash) mounts.push({ id: skillMountName(skill.id), dir: skill.dir, expectedHash: entry.hash });
  }
  return mounts;
}

// Slash commands: `/skills` lists this world's skills privately; `/skill ID [args]` runs one in a new thread.
import type { App as BoltApp, RespondFn } from '@slack/bolt';
import { closestIds, type DeliveryDedupe, parseInstallCommand } from '../../src/platform/index.ts';
import { person } from './approvalCard.ts';
import { slackWorldId } from './ids.ts';
import { slashCommandSchema, unescapeSlack, type SlashCommand } from './payloads.ts';
import { slackErrorCode } from './slackApi.ts';
import { skillListText } from './skillList.ts';
import { safeText } from './slackText.ts';
import { startTurn, type TurnDeps } from './turns.ts';
import { runInstallCommand } from './installCommands.ts';

export interface CommandDeps extends TurnDeps {
  dedupe: DeliveryDedupe;
  accepting: () => boolean;
}

export const SKILL_USAGE = 'Usage: `/skill ID [args]`. `/skills` lists the skills here. (Slack allows slash commands only outside threads; inside a thread, mention me: `@skillbot /skill ID [args]` or `@skillbot skills`.)';

interface Ephemeral {
  response_type: 'ephemeral';
  text: string;
}
const ephemeral = (text: string): Ephemeral => ({ response_type: 'ephemeral', text });

function parseSkillText(text: string): { id: string; args: string } | undefined {
  const match = /^\s*(\S+)\s*([\s\S]*)$/.exec(unescapeSlack(text));
  return match?.[1] ? { id: match[1], args: (match[2] ?? '').trim() } : undefined;
}

async function runSkill(deps: CommandDeps, command: SlashCommand, skill: { id: string; args: string }, respond: RespondFn): Promise<void> {
  const key = `command:${command.trigger_id ?? `${command.user_id}:${command.channel_id}:${command.text}`}`;
  const delivery = await deps.dedupe.take([key]);
  if (delivery === undefined) return;
  // The person's limits hold for a command's turn as for a message's (the rules were checked before it ran).
  const limited = await deps.core.access.admitTurn(slackWorldId(command.team_id, command.channel_id), command.user_id, key);
  if (limited.kind === 'limited') {
    await delivery.done();
    await respond(ephemeral(limited.note));
    return;
  }
  const asked = `${person(command.user_id)} asked for *${safeText(skill.id)}*${skill.args ? `: ${safeText(skill.args)}` : ''}`;
  let rootTs: string;
  try {
    rootTs = await deps.api.post({ channel: command.channel_id, text: asked });
  } catch (error) {
    await delivery.done();
    const code = slackErrorCode(error);
    deps.logger.warn({ err: code, channel: command.channel_id }, 'posting the /skill root message failed');
    const hint = code === 'not_in_channel' || code === 'channel_not_found' ? ' Invite me to this channel first (`/invite @skillbot`).' : '';
    await respond(ephemeral(`I could not post here (${safeText(code)}).${hint}`));
    return;
  }
  try {
    // The command's own claim (above) already keeps a replay from posting a second root: no delivery keys here.
    const accepted = await startTurn(
      deps,
      {
        teamId: command.team_id,
        channelId: command.channel_id,
        threadTs: rootTs,
        userId: command.user_id,
        text: `/skill ${skill.id}${skill.args ? ` ${skill.args}` : ''}`,
        skill,
      },
      [],
    );
    if (accepted === 'refused') throw new Error('the /skill turn could not be queued: the store did not answer');
  } finally {
    await delivery.done();
  }
}

export function registerCommands(bolt: BoltApp, deps: CommandDeps): void {
  bolt.command('/skills', async ({ command, ack, respond }) => {
    const parsed = slashCommandSchema.safeParse(command);
    if (!parsed.success) return ack();
    const install = parseInstallCommand(unescapeSlack(parsed.data.text));
    if (install !== undefined) {
      if (install.kind === 'usage' || install.kind === 'installed') {
        const text = await runInstallCommand(deps, { teamId: parsed.data.team_id, channelId: parsed.data.channel_id, userId: parsed.data.user_id }, install);
        return ack(ephemeral(text ?? ''));
      }
      // Fetching and the review take longer than Slack's 3 seconds: acknowledge, then work in the background.
      await ack();
      const key = `command:${parsed.data.trigger_id ?? `${parsed.data.user_id}:${parsed.data.channel_id}:${parsed.data.text}`}`;
      deps.tasks.run('/skills install', async () => {
        const delivery = await deps.dedupe.take([key]);
        if (delivery === undefined) return;
        try {
          const privately = await runInstallCommand(deps, { teamId: parsed.data.team_id, channelId: parsed.data.channel_id, userId: parsed.data.user_id }, install);
          if (privately !== undefined) await respond(ephemeral(privately));
        } catch (error) {
          deps.logger.error({ err: error }, '/skills install failed');
          await respond(ephemeral('That did not work: the bot could not finish it (see its log).')).catch(() => undefined);
        } finally {
          await delivery.done();
        }
      });
      return;
    }
    const skills = deps.core.skills.forWorld(slackWorldId(parsed.data.team_id, parsed.data.channel_id));
    await ack(ephemeral(skillListText(skills)));
  });

  // A person's own figures here (their turns and tokens against the world's limits), privately.
  bolt.command('/usage', async ({ command, ack }) => {
    const parsed = slashCommandSchema.safeParse(command);
    if (!parsed.success) return ack();
    await ack(ephemeral(await deps.core.access.usage(slackWorldId(parsed.data.team_id, parsed.data.channel_id), parsed.data.user_id)));
  });

  bolt.command('/skill', async ({ command, ack, respond }) => {
    const parsed = slashCommandSchema.safeParse(command);
    if (!parsed.success) return ack();
    if (!deps.accepting()) return ack(ephemeral('I am restarting; try again in a moment.'));
    const wanted = parseSkillText(parsed.data.text);
    if (wanted === undefined) return ack(ephemeral(SKILL_USAGE));
    const ids = deps.core.skills.forWorld(slackWorldId(parsed.data.team_id, parsed.data.channel_id)).map((skill) => skill.id);
    if (!ids.includes(wanted.id) && !deps.core.skills.served(wanted.id)) {
      const near = closestIds(wanted.id, ids);
      const hint = near.length > 0 ? ` Did you mean ${near.map((id) => `\`${safeText(id)}\``).join(', ')}?` : ' `/skills` lists them.';
      return ack(ephemeral(`No skill \`${safeText(wanted.id)}\` is available in this channel.${hint}`));
    }
    // Acknowledge first: posting and queueing may take longer than Slack's 3 seconds.
    await ack();
    deps.tasks.run('/skill', () =>
      runSkill(deps, parsed.data, wanted, respond).catch((error: unknown) =>
        deps.logger.error({ err: slackErrorCode(error) }, 'running /skill failed'),
      ),
    );
  });
}

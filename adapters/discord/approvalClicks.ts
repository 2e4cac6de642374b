// A click on an approval button (`hitl:<id>:<option>`). It counts only for a pending approval of this channel,
// from someone who may answer; anyone else is told why, privately, and nothing changes.
import { type ButtonInteraction, MessageFlags } from 'discord.js';
import type { Core, ResponseResult } from '../../src/platform/index.ts';
import type { Logger } from '../../src/ops/log.ts';
import { describeOutcome, parseCustomId } from './approvalCard.ts';
import { channelFactsOf, locate, type ThreadDirectory, worldOf } from './places.ts';
import type { DiscordApprovalPresenter } from './approvalPresenter.ts';

const REPLIES: Record<Exclude<ResponseResult['kind'], 'accepted' | 'already_resolved' | 'not_allowed'>, string> = {
  not_found: 'This approval is no longer open (it ended, or it is too old).',
  wrong_world: 'This approval belongs to another channel.',
  invalid_option: 'That is not one of the choices of this approval.',
};

export interface ClickDeps {
  core: Pick<Core, 'approvals'>;
  presenter: DiscordApprovalPresenter;
  threads: ThreadDirectory;
  log: Logger;
}

/**
 * A click on `hitl:<id>:<option>`. Acknowledged at once (the 3-second rule), then checked by the runtime:
 * exists, pending, this channel, the clicker may approve. The requester's answer edits the question (through the
 * presenter); anyone else gets an ephemeral reply and the question stays open.
 */
export async function answerApprovalClick(interaction: ButtonInteraction, deps: ClickDeps): Promise<void> {
  await interaction.deferUpdate();
  const ephemeral = async (content: string) => {
    await interaction.followUp({ content, flags: MessageFlags.Ephemeral });
  };
  const parsed = parseCustomId(interaction.customId);
  const worldId = worldOf(await locate(channelFactsOf(interaction.channel, interaction.channelId, interaction.guildId), deps.threads));
  if (!parsed || worldId === undefined) {
    await ephemeral(REPLIES.not_found);
    return;
  }
  const { result, told } = await deps.presenter.duringClick(parsed.approvalId, interaction.user.id, ephemeral, () =>
    deps.core.approvals.respond({ worldId, approvalId: parsed.approvalId, option: parsed.option, userId: interaction.user.id }),
  );
  deps.log.info({ approvalId: parsed.approvalId, option: parsed.option, userId: interaction.user.id, result: result.kind }, 'approval click');
  switch (result.kind) {
    case 'accepted':
      return;
    case 'already_resolved':
      await ephemeral(`Already answered: ${describeOutcome(result.record)}`);
      return;
    case 'not_allowed':
      // The runtime told the clicker why (through tellPrivately); say it here if that did not reach them.
      if (!told) await ephemeral("Only the person who asked, or one of this channel's approvers, can answer this approval.");
      return;
    case 'not_found':
      await ephemeral(REPLIES.not_found);
      // Its buttons would only ever answer "not found": take them away.
      await interaction.editReply({ components: [] }).catch((error: unknown) => deps.log.debug({ err: error }, 'removing stale buttons failed'));
      return;
    default:
      await ephemeral(REPLIES[result.kind]);
  }
}

// What the adapter subscribes to and calls, for tests/slack/manifest.test.ts to hold manifest.yml to.
/** Events the adapter registers listeners for (messages, assistantThreads, appHome). */
export const SLACK_BOT_EVENTS = [
  'app_mention', 'message.channels', 'message.groups', 'message.im', 'message.mpim',
  'app_home_opened', 'app_context_changed',
  // Who may use the bot (access.ts): a person's profile or a user group changed, so their facts are read again.
  'user_change', 'subteam_members_changed', 'subteam_updated',
] as const;

/** Events still handled for apps whose manifest keeps `assistant_view` (docs/slack.md); the manifest no longer lists them. */
export const SLACK_LEGACY_EVENTS = ['assistant_thread_started', 'assistant_thread_context_changed'] as const;

/** Bot scopes the calls need (views.publish and the streaming methods need none beyond these). */
export const SLACK_BOT_SCOPES = [
  'app_mentions:read', 'channels:history', 'groups:history', 'im:history', 'mpim:history', 'chat:write', 'commands', 'assistant:write',
  // files.getUploadURLExternal / completeUploadExternal: an approval question too long for its card, in full.
  'files:write',
  // files people share with a question, downloaded with the bot token; names of people in the context read.
  'files:read', 'users:read',
  // `access.groups`: the members of a listed user group (usergroups.users.list).
  'usergroups:read',
] as const;

import type { Command } from './command.js';

export const rotateSigningKey: Command = {
  usage: 'signing-key rotate',
  options: [],
  check: async () => undefined,
  run: async (app) => {
    const { SIGNING_KEY_STORE } = await import('../auth/signing/signing-key-store.js');
    const store = app.get<import('../auth/signing/signing-key-store.js').SigningKeyStore>(SIGNING_KEY_STORE);
    return { signingKey: await store.rotate() };
  },
};

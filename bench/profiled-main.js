// Runs the built service (dist/src/main.js) in this process with an in-process CPU profiler that the
// parent (bench/profile.js) starts and stops over IPC, so a profile covers exactly one load window.
//   parent -> { cmd: 'start' }                 child -> { event: 'started' }
//   parent -> { cmd: 'stop', file: PATH }      child -> { event: 'stopped', file: PATH }
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: Number(process.env.BENCH_PROFILE_INTERVAL_US ?? 250) });

process.on('message', async (message) => {
  try {
    if (message?.cmd === 'start') {
      await session.post('Profiler.start');
      process.send({ event: 'started' });
    } else if (message?.cmd === 'stop') {
      const { profile } = await session.post('Profiler.stop');
      await writeFile(message.file, JSON.stringify(profile));
      process.send({ event: 'stopped', file: message.file });
    }
  } catch (error) {
    process.send({ event: 'error', message: String(error?.stack ?? error) });
  }
});
// The IPC channel must not keep the process alive once the service has shut down.
process.channel?.unref();

await import(pathToFileURL(resolve(import.meta.dirname, '../dist/src/main.js')).href);

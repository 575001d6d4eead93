import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/infra/config/app-config.js';
import { buildOnce, ROOT } from './support/build.js';

const GOOD_SECRET = Buffer.alloc(32, 1).toString('base64');

function refusal(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('configuration', () => {
  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['DATABASE_URL', 'mysql://x'],
    ['DATABASE_URL', 'postgres://'],
    ['SECRET_KEY', 'short'],
    ['SECRET_KEY', Buffer.alloc(16, 1).toString('base64')],
    ['REDIS_URL', 'http://x'],
    ['LOG_LEVEL', 'loud'],
    ['BODY_LIMIT_BYTES', '10'],
    ['DATABASE_POOL_SIZE', '0'],
    ['DEFAULT_KEY_RATE_LIMIT', 'many'],
    ['REFRESH_REUSE_GRACE_SECONDS', '3600'],
    ['DATAHUB_ALLOWED_HOSTS', 'public,10.0.0.0/33'],
    ['DATAHUB_ALLOWED_HOSTS', 'https://sftp.example'],
    ['DATAHUB_ALLOWED_HOSTS', ' , '],
    ['FILE_STORAGE_URL', 'https://bucket.example/files'],
    ['FILE_STORAGE_URL', 's3://Bad_Bucket?region=eu-central-1'],
  ])('refuses %s=%s with a message naming the variable', (name, value) => {
    const error = refusal({ [name]: value });
    expect(error.message).toContain(`${name}=`);
    // Only the bad variable is named.
    const named = error.message.split('\n').filter((line) => /^\s+[A-Z_]+=/.test(line));
    expect(named).toHaveLength(1);
  });

  it('names every bad variable at once', () => {
    const error = refusal({ PORT: 'abc', LOG_LEVEL: 'loud', REDIS_URL: 'http://x' });
    for (const name of ['PORT', 'LOG_LEVEL', 'REDIS_URL']) expect(error.message).toContain(`${name}=`);
  });

  it('applies the defaults', () => {
    const config = loadConfig({});
    expect({
      PORT: config.PORT,
      HOST: config.HOST,
      DATABASE_URL: config.DATABASE_URL,
      DATA_DIR: config.DATA_DIR,
      REDIS_URL: config.REDIS_URL,
      LOG_LEVEL: config.LOG_LEVEL,
      SECRET_KEY: config.SECRET_KEY,
      BODY_LIMIT_BYTES: config.BODY_LIMIT_BYTES,
      DEFAULT_KEY_RATE_LIMIT: config.DEFAULT_KEY_RATE_LIMIT,
      DATABASE_POOL_SIZE: config.DATABASE_POOL_SIZE,
      REFRESH_REUSE_GRACE_SECONDS: config.REFRESH_REUSE_GRACE_SECONDS,
      DEMO_STORE_ON_FIRST_START: config.DEMO_STORE_ON_FIRST_START,
    }).toEqual({
      PORT: 3000,
      HOST: '0.0.0.0',
      DATABASE_URL: undefined,
      DATA_DIR: '.data',
      REDIS_URL: undefined,
      LOG_LEVEL: 'info',
      SECRET_KEY: undefined,
      BODY_LIMIT_BYTES: 1024 * 1024,
      DEFAULT_KEY_RATE_LIMIT: 600,
      DATABASE_POOL_SIZE: 20,
      REFRESH_REUSE_GRACE_SECONDS: 5,
      DEMO_STORE_ON_FIRST_START: true,
    });
    expect(config.dataDir).toBe(resolve('.data'));
  });

  it('reads and converts good values', () => {
    const config = loadConfig({
      PORT: '8080',
      DATABASE_URL: 'postgresql://u:p@db:5432/shop',
      SECRET_KEY: GOOD_SECRET,
      REDIS_URL: 'rediss://cache:6380',
      LOG_LEVEL: 'warn',
      BODY_LIMIT_BYTES: '2048',
      DEMO_STORE_ON_FIRST_START: 'false',
      DATABASE_POOL_SIZE: '5',
    });
    expect(config).toMatchObject({
      PORT: 8080,
      DATABASE_URL: 'postgresql://u:p@db:5432/shop',
      SECRET_KEY: GOOD_SECRET,
      REDIS_URL: 'rediss://cache:6380',
      LOG_LEVEL: 'warn',
      BODY_LIMIT_BYTES: 2048,
      DEMO_STORE_ON_FIRST_START: false,
      DATABASE_POOL_SIZE: 5,
    });
  });

  it('reads only its own variables from the environment it is given', () => {
    const config = loadConfig({ PORT: '4000', UNRELATED: 'x', PATH: '/bin' });
    expect(config.PORT).toBe(4000);
    expect(Object.keys(config)).not.toContain('UNRELATED');
    expect(Object.keys(config)).not.toContain('PATH');
  });

  describe('the built server', () => {
    let built: (relative: string) => string;
    beforeAll(async () => {
      built = await buildOnce();
    }, 120_000);

    it('exits non-zero with PORT=abc, naming the variable on stderr and printing nothing on stdout', async () => {
      const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((done, fail) => {
        const child = spawn(process.execPath, [built('src/main.js')], {
          cwd: ROOT,
          env: { PATH: process.env.PATH ?? '', PORT: 'abc', LOG_LEVEL: 'silent' },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk) => (stdout += chunk));
        child.stderr.on('data', (chunk) => (stderr += chunk));
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          fail(new Error(`server did not exit: ${stderr}`));
        }, 15_000);
        child.on('exit', (code) => {
          clearTimeout(timer);
          done({ code, stdout, stderr });
        });
      });
      expect(result.code).not.toBe(0);
      expect(result.code).toBe(78);
      expect(result.stderr).toContain('PORT=');
      expect(result.stderr).not.toMatch(/\bat \S+ \(/);
      expect(result.stdout).toBe('');
    });
  });
});

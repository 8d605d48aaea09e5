import { createRequire } from 'node:module';
import path from 'node:path';
import { execa, type ResultPromise } from 'execa';

/** A turborepo-remote-cache server on loopback, with a local-disk store, for one test file. */
export interface TurboCacheServer {
  /** `http://127.0.0.1:PORT` */
  url: string;
  token: string;
  /** The directory the server keeps artifacts in: `STORE/TEAM/HASH`. */
  store: string;
  stop(): Promise<void>;
}

const serverCli = path.join(path.dirname(createRequire(import.meta.url).resolve('turborepo-remote-cache/package.json')), 'dist', 'cli.js');

/** Starts the server on a port the system picks and waits until it says where it listens. */
export async function startTurboCacheServer(store: string, token: string): Promise<TurboCacheServer> {
  const child: ResultPromise = execa('node', [serverCli], {
    env: {
      HOST: '127.0.0.1',
      PORT: '0',
      TURBO_TOKEN: token,
      STORAGE_PROVIDER: 'local',
      STORAGE_PATH: store,
      STORAGE_PATH_USE_TMP_FOLDER: 'false',
      LOG_LEVEL: 'info',
      NODE_ENV: 'production',
    },
    extendEnv: false,
    reject: false,
    buffer: false,
  });
  const url = await new Promise<string>((resolve, reject) => {
    let seen = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(seen);
      if (match) resolve(match[1]!);
    });
    void child.then((result) => reject(new Error(`the cache server exited before it listened (${String(result.exitCode)}): ${seen}`)));
  });
  return {
    url,
    token,
    store,
    async stop() {
      child.kill('SIGKILL');
      await child;
    },
  };
}

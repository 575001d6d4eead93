export declare const SERVED_BY: string;
export declare const CHECK_INTERVAL_MS: number;
export declare const CLIENT_KEEP_ALIVE_SECONDS: number;
export declare function haproxyConfig(options: { port: number; servers: { name: string; port: number }[]; statsSocket?: string }): string;
export declare function pgbouncerIni(options: {
  databaseUrl: string;
  user: string;
  port: number;
  userlist: string;
  poolSize: number;
  roundRobin?: boolean;
}): string;

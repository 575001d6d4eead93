// The configuration files of the HAProxy and PgBouncer peers, as text: one definition for the tests' peers
// (haproxy.ts, pgbouncer.ts) and for `node bench/topology.js`, which loads it as plain JavaScript.

/** Every answer names the server that gave it, so a client sees where round robin sent each request. */
export const SERVED_BY = 'x-served-by';
/** How often each server is checked: two failed checks take it out, two passed ones bring it back. */
export const CHECK_INTERVAL_MS = 500;
/**
 * How long HAProxy keeps an idle client connection open: shorter than the service's keep-alive timeout
 * (KEEP_ALIVE_TIMEOUT_SECONDS, 72 s), so that the balancer closes an idle connection first.
 */
export const CLIENT_KEEP_ALIVE_SECONDS = 60;

/** HAProxy on 127.0.0.1:`port`, round robin over `servers`, each health-checked on /health/ready. */
export function haproxyConfig({ port, servers, statsSocket }) {
  return `global
  maxconn 2000
${statsSocket ? `  stats socket ${statsSocket} mode 600 level admin\n` : ''}
defaults
  mode http
  timeout connect 1s
  timeout client 30s
  timeout server 30s
  timeout http-keep-alive ${CLIENT_KEEP_ALIVE_SECONDS}s
  timeout check 1s
  # a connection a dead server refused is tried again on another one (nothing reached the dead one)
  retries 2
  option redispatch 1

frontend storefront
  bind 127.0.0.1:${port}
  default_backend instances

backend instances
  balance roundrobin
  option httpchk GET /health/ready
  http-check expect status 200
  http-response set-header ${SERVED_BY} %[srv_name]
${servers.map((server) => `  server ${server.name} 127.0.0.1:${server.port} check inter ${CHECK_INTERVAL_MS}ms fall 2 rise 2`).join('\n')}
`;
}

/** PgBouncer on 127.0.0.1:`port` in transaction pooling mode, in front of `databaseUrl`'s database, trusting `user`. */
export function pgbouncerIni({ databaseUrl, user, port, userlist, poolSize, roundRobin = false }) {
  const target = new URL(databaseUrl);
  const database = target.pathname.slice(1);
  return `[databases]
${database} = host=${target.hostname} port=${target.port || 5432} dbname=${database} user=${user}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = trust
auth_file = ${userlist}
admin_users = ${user}
pool_mode = transaction
max_client_conn = 200
default_pool_size = ${poolSize}
reserve_pool_size = 0
ignore_startup_parameters = extra_float_digits
log_connections = 0
log_disconnections = 0
${
  roundRobin
    ? `; Each transaction takes the server connection idle longest rather than the one just released, so that
; state a transaction left behind on one would show up in another client's transaction.
server_round_robin = 1
`
    : ''
}`;
}

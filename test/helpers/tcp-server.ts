import net from 'node:net';

/** How the local TCP listener behaves on each connection. */
export interface TcpBehaviour {
  /** Sent as soon as a client connects. */
  banner?: string;
  /** The reply to what a client sent; null sends nothing. */
  reply?: (request: string) => string | null;
  /** Delay before the banner and before each reply. */
  delayMs?: number;
  /** After the banner/reply: close the connection (default), keep it open, or reset it. */
  after?: 'close' | 'keep-open' | 'reset';
}

/** A TCP listener on 127.0.0.1 with scripted replies. */
export interface TcpServer {
  host: string;
  port: number;
  /** What each connection sent, in order of connection. */
  received: string[];
  /** Replaces the behaviour for new connections. */
  set(behaviour: TcpBehaviour): void;
  close(): Promise<void>;
}

/** Starts a TCP listener on 127.0.0.1 and an ephemeral port. */
export async function startTcpServer(initial: TcpBehaviour = {}): Promise<TcpServer> {
  let behaviour = initial;
  const received: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    const b = behaviour;
    const index = received.push('') - 1;
    const finish = () => {
      if (b.after === 'reset') socket.resetAndDestroy();
      else if (b.after !== 'keep-open') socket.end();
    };
    const later = (fn: () => void) => setTimeout(fn, b.delayMs ?? 0);
    if (b.banner !== undefined) {
      later(() => {
        socket.write(b.banner!);
        if (!b.reply) finish();
      });
    } else if (!b.reply) {
      later(finish);
    }
    socket.on('data', (chunk) => {
      received[index] += chunk.toString('utf8');
      const answer = b.reply?.(received[index]);
      if (answer === null || answer === undefined) return;
      later(() => {
        socket.write(answer);
        finish();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    host: '127.0.0.1',
    port,
    received,
    set: (b) => void (behaviour = b),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A port on 127.0.0.1 where nothing listens (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * One request through the HTTP cache in a node:http framework whose handlers write to the
 * ServerResponse (Express, Connect, Fastify): the policy answers from the store, or the
 * handlers run once, their response is captured, and the cache's answer is written to the client.
 */
import type { IncomingMessage } from 'node:http';
import type { BytesAnswer, HttpCache } from '../../../src/http/index.ts';
import { ResponseCapture } from './capture.ts';
import { applyForwarded, restoreRequest } from './fetch-request.ts';
import type { HeaderFields, RealResponse } from './real-response.ts';
import { refetch, type RequestServer } from './refetch.ts';
import { cannotRetry, sendBytes, sendResponse } from './send-response.ts';

/** What one {@link exchange} needs of its framework. */
export interface Exchange {
  policy: HttpCache;
  req: IncomingMessage;
  /** The client's side of the response. */
  real: RealResponse;
  /** The client's request as the policy sees it (see fetch-request.ts). */
  request: Request;
  /** Runs the handlers after the cache, in this pass: Express's `next()`, a Fastify hook's `done()`. */
  proceed(): void;
  /** Hands an error the cache met before any handler ran to the framework's error handling. */
  reject(error: unknown): void;
  /** The server a request the handlers cannot answer in this pass is dispatched through again. */
  server: RequestServer | undefined;
  /**
   * The framework routed the request before the cache ran and stops its handlers once the
   * client's answer has ended (Fastify: routing precedes hooks, and `reply.sent` ends the
   * lifecycle; Koa: its response step runs only once the middleware has unwound). Its handlers
   * then run in this pass only for the routed method and while the client waits; a background
   * revalidation goes through {@link server} as a request of its own.
   * False (Express) runs the handlers of a stale-while-revalidate refresh in this pass, after
   * the client got the stale copy.
   */
  routedBeforeCache: boolean;
  /** Fields of this request that are not on the response yet (Fastify's reply headers): sent with every answer, never stored. */
  requestHeaders?: HeaderFields;
  /** Called before the cache writes an answer for which no handler ran in this pass (Fastify hijacks its reply). */
  answering?(): void;
}

/**
 * Answers one request through the cache. Resolves once the answer is written; rejects when it
 * could not be (the binding then fails the response: see failResponse), never for an error met
 * before the handlers ran, which goes to {@link Exchange.reject}.
 */
export async function exchange(x: Exchange): Promise<void> {
  let capture: ResponseCapture | undefined;
  let background = false;
  // The handlers run at most once per request in this pass: `next` cannot be called twice, and a
  // hook's `done` continues one lifecycle. Every other origin call goes through the server.
  const runHandlers = (forwarded: Request, inBackground: boolean): Promise<Response> => {
    if (capture || (x.routedBeforeCache && (inBackground || forwarded.method !== x.req.method))) {
      return refetch(x.server, x.req, forwarded) ?? Promise.resolve(cannotRetry());
    }
    background = inBackground;
    const saved = applyForwarded(x.req, x.request, forwarded);
    capture = new ResponseCapture(x.req, x.real, { method: forwarded.method, abandonOnDisconnect: !inBackground });
    capture.install();
    if (x.requestHeaders) capture.requestHeaders(x.requestHeaders);
    void capture.settled.then(() => restoreRequest(x.req, saved));
    x.proceed();
    return capture.response;
  };
  let response: Response | BytesAnswer;
  try {
    // A hit comes as bytes, written as they are: no fetch Response is built for it.
    response = await x.policy.handleBytes(x.request, (forwarded) => runHandlers(forwarded, false), { revalidate: (forwarded) => runHandlers(forwarded, true) });
  } catch (error) {
    // Before the handlers ran (a strict engine's store error), the framework's error handling takes it.
    if (!capture) {
      x.reject(error);
      return;
    }
    throw error;
  }
  if (!capture) x.answering?.();
  const options = { keepHandlerStatus: background, ...(x.requestHeaders ? { requestHeaders: x.requestHeaders } : {}) };
  if (response instanceof Response) await sendResponse(x.real, response, options);
  else sendBytes(x.real, response, options);
}

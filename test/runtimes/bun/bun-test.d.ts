// The part of Bun's test module these suites use (the repo does not install bun-types).
declare module 'bun:test' {
  type Body = () => Promise<void> | void;
  export function describe(name: string, body: () => void): void;
  export const it: {
    (name: string, body: Body): void;
    skip(name: string, body: Body): void;
  };
  export function beforeAll(body: Body): void;
  export function afterAll(body: Body): void;
}

// The part of Bun's test module these suites use (the repo does not install bun-types).
declare module 'bun:test' {
  type Body = () => Promise<void> | void;
  export function describe(name: string, body: () => void): void;
  export function it(name: string, body: Body): void;
  export function beforeAll(body: Body): void;
  export function afterAll(body: Body): void;
}

/** Compile-time assertions: a type that is not `true` fails to compile. */
export type Expect<T extends true> = T;
export type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
export type IsAny<T> = 0 extends 1 & T ? true : false;
/** Each assignable to the other (looser than Equal: `x?: T` and `x?: T | undefined` agree). */
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

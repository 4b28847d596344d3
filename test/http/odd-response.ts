/**
 * What a scripted origin answered, as a Response a framework that maps handler results (h3,
 * Elysia) passes on unchanged. The suite stands in for a response fetch refuses to build (a
 * status outside 200–599, as a raw upstream may send) with a plain object; such a framework
 * would serialise a plain object as JSON, but hands a Response on as it is, so the stand-in takes
 * Response's prototype and reaches the cache as the response it stands for.
 */
export function asResponse(answer: Response): Response {
  return answer instanceof Response ? answer : (Object.setPrototypeOf(answer, Response.prototype) as Response);
}

import { defineHandler } from 'nitro/h3';
import { defineCachedFunction } from 'nitro/runtime';

let computed = 0;

/** A slow source: each call computes a new greeting, so a hit is told apart from a fill. */
const greeting = defineCachedFunction(async (name: string) => ({ text: `Hello, ${name}`, computed: ++computed }), { name: 'greeting', maxAge: 3600, swr: false });

export default defineHandler(async (event) => greeting(event.url.searchParams.get('name') ?? 'world'));

'use server';
import { updateTag } from 'next/cache';

/** A server action after a write: updateTag expires the tag at once, and this render reads its own write. */
export async function refreshGreeting() {
  updateTag('greeting');
}

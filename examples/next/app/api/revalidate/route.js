import { revalidateTag } from 'next/cache';

/**
 * POST /api/revalidate?tag=greeting[&profile=max]: revalidates a tag on every instance sharing
 * the store. Without a profile the tag expires at once ({ expire: 0 }); with one, as the profile
 * says. A real app checks a secret before this.
 */
export async function POST(request) {
  const url = new URL(request.url);
  const tag = url.searchParams.get('tag');
  if (!tag) return Response.json({ error: 'tag is required' }, { status: 400 });
  revalidateTag(tag, url.searchParams.get('profile') ?? { expire: 0 });
  return Response.json({ revalidated: tag });
}

import { revalidateTag } from 'next/cache';

export const dynamic = 'force-dynamic';

export async function POST(request) {
  const tag = new URL(request.url).searchParams.get('tag');
  revalidateTag(tag);
  return Response.json({ revalidated: tag });
}

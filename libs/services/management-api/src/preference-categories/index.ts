export { PreferenceCategoriesController } from './preference-categories.controller';
export { PreferenceCategoryRepository, PreferenceCategoryVersionEntity } from './preference-category.repository';
export { CategoryTranslationsController } from './category-translations.controller';
export { CategoryTranslationEntity, CategoryTranslationRepository } from './category-translation.repository';
export { CreateCategoryTranslations1763701200000 } from './migrations/1763701200000-create-category-translations';
export { CategoryTranslationVersions1763701210000 } from './migrations/1763701210000-category-translation-versions';
